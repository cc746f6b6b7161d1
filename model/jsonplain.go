package model

import (
	"bytes"
	"encoding/json"
)

// MarshalPlain is json.Marshal without HTML escaping: what codexhost prints is read by agents
// and shells, not embedded in HTML, and `<id>` in a hint must read as written, not \u003cid\u003e.
func MarshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
