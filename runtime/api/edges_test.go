package api

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
	"unicode/utf8"
)

// A request id with invalid UTF-8 is not echoed: the reply is valid UTF-8 JSON with a null id,
// before and after authentication, and the connection goes on after it.
func TestInvalidUTF8RequestIDNotEchoed(t *testing.T) {
	s := startServer(t, ServerOptions{})
	r := dialRaw(t, s.endpoint)
	r.auth()
	if _, err := r.nc.Write([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"a\xff\xfeb\",\"method\":\"echo\",\"params\":1}\n")); err != nil {
		t.Fatal(err)
	}
	_ = r.nc.SetReadDeadline(time.Now().Add(waitLimit))
	line, err := r.br.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(line) || !json.Valid(bytes.TrimSpace(line)) {
		t.Fatalf("reply is not valid UTF-8 JSON: %q", line)
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil || string(m.ID) != "null" || m.Error == nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	r.send(`{"jsonrpc":"2.0","id":"ok","method":"echo","params":2}`)
	if m := r.recv(); m.Error != nil || string(m.ID) != `"ok"` {
		t.Fatalf("after the bad id: %+v", m)
	}
}
