package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// JSONDocument checks that b is exactly one JSON value, as a file a caller gives is. A
// malformed file is the caller's error: the answer is INVALID_ARGUMENT with the line and
// column (1-based) where reading stopped, so it can be fixed without guessing.
func JSONDocument(name string, b []byte) (json.RawMessage, error) {
	var v any
	err := json.Unmarshal(b, &v)
	if err == nil {
		return json.RawMessage(b), nil
	}
	var se *json.SyntaxError
	offset := int64(len(b))
	reason := err.Error()
	if errors.As(err, &se) {
		offset = se.Offset
		if se.Offset > 0 && !strings.HasPrefix(se.Error(), "unexpected end") {
			offset = se.Offset - 1 // the offending byte, not the one after it
		}
	}
	if len(bytes.TrimSpace(b)) == 0 {
		reason = "the file is empty"
	}
	line, col := LineColumn(b, offset)
	return nil, Errorf(CodeInvalidArgument, "fix the JSON at that place; give exactly one JSON object",
		"%s is not valid JSON at line %d, column %d: %s", name, line, col, reason).
		WithDetail("line", line).WithDetail("column", col)
}

// LineColumn is the 1-based line and column (in bytes) of offset in b.
func LineColumn(b []byte, offset int64) (int, int) {
	if offset > int64(len(b)) {
		offset = int64(len(b))
	}
	before := b[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(offset) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
