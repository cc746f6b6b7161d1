package store

import (
	"encoding/base64"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Stored records of any bytes decode or are refused; what decodes re-encodes, keeping the
// fields its type does not know.
func FuzzDecodeRecord(f *testing.F) {
	for _, s := range []string{`{"v":1,"text":"a"}`, `{"v":2,"text":"a","future":{"x":[1]}}`, `{"v":0}`, `{}`, `[]`, `null`, `{"v":1,"text":5}`, `{"v":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var n note
		if err := decode(raw, &n); err != nil {
			return
		}
		if _, err := encode(n); err != nil && n.V >= 1 {
			t.Fatalf("decoded %q but cannot encode it again: %v", raw, err)
		}
	})
}

// Page cursors and client-event cursors of any text page or are INVALID_ARGUMENT.
func FuzzStoreCursors(f *testing.F) {
	home := filepath.Join(f.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Put("note", id, note{Record{V: 1}, id}); err != nil {
			f.Fatal(err)
		}
	}
	for _, c := range []string{"", base64.RawURLEncoding.EncodeToString([]byte("note/a")), base64.RawURLEncoding.EncodeToString([]byte("other/a")), "!!", "5", "18446744073709551616"} {
		f.Add(c, false)
		f.Add(c, true)
	}
	f.Fuzz(func(t *testing.T, cursor string, reverse bool) {
		_, err := s.Page("note", cursor, 2, reverse, func(string, []byte) (bool, error) { return true, nil })
		if err != nil && !model.IsCode(err, model.CodeInvalidArgument) {
			t.Fatalf("Page(%q): %v", cursor, err)
		}
		if _, err := s.ClientEvents("bot", cursor, 5); err != nil && !model.IsCode(err, model.CodeInvalidArgument) {
			t.Fatalf("ClientEvents(%q): %v", cursor, err)
		}
	})
}
