package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
)

// JSON-RPC 2.0 error codes. Every error object also carries the model error in data, so
// clients branch on data.code, not on these.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcServerError    = -32000
)

// ErrUnknownMethod is returned (or wrapped) by a Handler for a method it does not serve; the
// server answers it as JSON-RPC "method not found" carrying an INVALID_ARGUMENT error.
var ErrUnknownMethod = errors.New("unknown method")

var nullJSON = json.RawMessage("null")

// wireRequest is what the server reads. ID stays nil when the member is absent, which is what
// makes a notification; an explicit null decodes to "null".
type wireRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// wireMessage is what the client reads: a response or a notification.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// validID accepts the id forms JSON-RPC 2.0 allows: string, number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"':
		// The id is echoed as sent: invalid UTF-8 in it would make the reply invalid JSON.
		return utf8.Valid(id)
	case c == '-', c >= '0' && c <= '9':
		return true
	default:
		return bytes.Equal(id, nullJSON)
	}
}

// appendResult frames a success response. id and result are already valid compact JSON.
func appendResult(buf []byte, id, result []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":`...)
	buf = append(buf, result...)
	return append(buf, "}\n"...)
}

// encodeError frames an error response whose data is the model error.
func encodeError(id json.RawMessage, code int, e *model.Error) []byte {
	if len(id) == 0 {
		id = nullJSON
	}
	type errObj struct {
		Code    int          `json:"code"`
		Message string       `json:"message"`
		Data    *model.Error `json:"data"`
	}
	type resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errObj          `json:"error"`
	}
	b, err := json.Marshal(resp{"2.0", id, errObj{code, e.Message, e}})
	if err != nil {
		// Only Details can fail to encode; losing them beats losing the code.
		bare := &model.Error{Code: e.Code, Message: e.Message, Hint: e.Hint}
		b, _ = json.Marshal(resp{"2.0", id, errObj{code, e.Message, bare}})
	}
	return append(b, '\n')
}

// decodeError rebuilds the model error a server sent; an error without one (not from a
// codexhost runtime) becomes INTERNAL_ERROR with the message.
func decodeError(we *wireError) *model.Error {
	if we == nil {
		return nil
	}
	if len(we.Data) > 0 {
		var me model.Error
		if json.Unmarshal(we.Data, &me) == nil && me.Code != "" {
			if me.Message == "" {
				me.Message = we.Message
			}
			return &me
		}
	}
	msg := we.Message
	if msg == "" {
		msg = fmt.Sprintf("runtime error %d", we.Code)
	}
	return &model.Error{Code: model.CodeInternal, Message: msg,
		Details: map[string]any{"rpcCode": we.Code}}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next line without its newline, at most max bytes; the slice is valid
// until the next call. A final line without a newline is returned with the read error.
// Over-long lines fail with errLineTooLong rather than growing without bound.
func readLine(r *bufio.Reader, max int, scratch *[]byte) ([]byte, error) {
	chunk, err := r.ReadSlice('\n')
	if err == nil || !errors.Is(err, bufio.ErrBufferFull) {
		line := bytes.TrimSuffix(chunk, []byte("\n"))
		if len(line) > max {
			return nil, errLineTooLong
		}
		return line, err
	}
	if len(chunk) > max {
		return nil, errLineTooLong // a full buffer without a newline: no need to copy it
	}
	buf := append((*scratch)[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(buf) > max {
			return nil, errLineTooLong
		}
		chunk, err = r.ReadSlice('\n')
		buf = append(buf, chunk...)
	}
	// Keep a grown buffer for the next long line, but not a huge one forever.
	if cap(buf) <= 1<<20 {
		*scratch = buf
	}
	line := bytes.TrimSuffix(buf, []byte("\n"))
	if len(line) > max {
		return nil, errLineTooLong
	}
	return line, err
}
