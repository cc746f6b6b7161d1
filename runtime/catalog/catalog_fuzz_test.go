package catalog

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Catalog cursors: only one this runtime signed, for that command and host, is accepted.
func FuzzCatalogCursor(f *testing.F) {
	c := &Catalog{opts: Options{Key: []byte("0123456789abcdef0123456789abcdef")}}
	f.Add(c.encodeCursor(cursorBody{V: cursorVersion, Kind: "sessions", Host: "local"}))
	f.Add(c.encodeCursor(cursorBody{V: cursorVersion, Kind: "transcript", Host: "node:a", Offset: 3}))
	for _, s := range []string{"", "cc1.", "cc1.e30.AAAA", "cc1..", "garbage"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := c.decodeCursor(s, "sessions", "local", "hint")
		if err != nil {
			if !model.IsCode(err, model.CodeInvalidArgument) {
				t.Fatalf("decodeCursor(%q): %v", s, err)
			}
			return
		}
		if b.Kind != "sessions" || b.Host != "local" || b.Offset < 0 {
			t.Fatalf("accepted %+v", b)
		}
	})
}

// A node's error answers of any shape map to a model error or an App Server RPC error.
func FuzzNodeResponse(f *testing.F) {
	f.Add(`{"code":"THREAD_NOT_FOUND","message":"m"}`)
	f.Add(`{"code":"NODE_INVOKE_FAILED","message":"m","details":{"rpcCode":-32600,"rpcMessage":"no rollout"}}`)
	f.Add(`{"code":"RUNTIME_UNREACHABLE","message":"lost"}`)
	f.Add(`{"details":{"rpcMessage":5}}`)
	f.Fuzz(func(t *testing.T, body string) {
		var me model.Error
		if err := json.Unmarshal([]byte(body), &me); err != nil {
			return
		}
		n := &NodeSource{name: "a"}
		err := n.callError(&me)
		var me2 *model.Error
		if !errors.As(err, &me2) && err.Error() == "" {
			t.Fatalf("callError(%+v) = %v", me, err)
		}
		var d api.NodeDescribeResult
		_ = json.Unmarshal([]byte(body), &d)
	})
}
