package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// JSON-RPC error codes of refused messages.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// StdioTransport is the transport of `codexhost mcp` over in and out: the SDK's
// newline-delimited JSON, behind a guard that answers an oversized message (refused before it
// is decoded), a malformed one or a batch with a JSON-RPC error and keeps the session. The
// SDK alone would end the session on the first line it cannot read.
func StdioTransport(in io.Reader, out io.Writer) sdk.Transport {
	pr, pw := io.Pipe()
	w := &lineWriter{w: out}
	go guard(in, pw, w, MaxRequestBytes)
	return &sdk.IOTransport{Reader: pr, Writer: w, MaxLineLength: MaxRequestBytes + 2}
}

// lineWriter makes every Write, one message each, whole on out.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lineWriter) Close() error { return nil }

// guard passes the acceptable lines of in to pw and answers the others on out itself.
func guard(in io.Reader, pw *io.PipeWriter, out io.Writer, limit int) {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, size, err := readLine(br, limit)
		if size > limit || len(bytes.TrimSpace(line)) > 0 {
			if reply := refusal(line, size, limit); reply != nil {
				_, _ = out.Write(reply)
			} else if _, werr := pw.Write(append(line, '\n')); werr != nil {
				return
			}
		}
		if err != nil {
			_ = pw.Close()
			return
		}
	}
}

// readLine reads one line without its line ending. A line longer than limit is read to its
// end and dropped: line is nil and size says how long it was.
func readLine(br *bufio.Reader, limit int) (line []byte, size int, err error) {
	var buf, chunk []byte
	for {
		var e error
		chunk, e = br.ReadSlice('\n')
		size += len(chunk)
		if size <= limit+2 { // room for "\r\n"
			buf = append(buf, chunk...)
		}
		if !errors.Is(e, bufio.ErrBufferFull) {
			err = e
			break
		}
	}
	if size > limit+2 {
		return nil, size - (len(chunk) - len(bytes.TrimRight(chunk, "\r\n"))), err
	}
	line = bytes.TrimRight(buf, "\r\n")
	if len(line) > limit {
		return nil, len(line), err
	}
	return line, len(line), err
}

// refusal is the JSON-RPC error answering line, or nil when the SDK may have it.
func refusal(line []byte, size, limit int) []byte {
	switch {
	case size > limit:
		return errorLine(nil, codeInvalidRequest, fmt.Sprintf("message of %d bytes refused before decoding: the limit is %d bytes", size, limit))
	case !json.Valid(line):
		return errorLine(nil, codeParseError, "parse error: the message is not valid JSON")
	case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
		return errorLine(nil, codeInvalidRequest, "JSON-RPC batches are not supported: send one message per line")
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(line, &probe)
		return errorLine(probe.ID, codeInvalidRequest, "invalid JSON-RPC message: "+err.Error())
	}
	return nil
}

func errorLine(id json.RawMessage, code int, msg string) []byte {
	if len(id) == 0 || !validID(id) {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return append(b, '\n')
}

// validID reports whether id is a JSON-RPC id (a string or a number).
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}
