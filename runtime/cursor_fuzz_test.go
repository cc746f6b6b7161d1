package runtime

import "testing"

// thread.list cursors: anything not given by the runtime is INVALID_ARGUMENT, never a panic,
// and a cursor the runtime gives decodes to what it encoded.
func FuzzDecodeListCursor(f *testing.F) {
	f.Add(encodeListCursor(listCursor{ID: "t1"}))
	for _, s := range []string{"", "e30", "!!!", "eyJpZCI6IiJ9", "bnVsbA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeListCursor(s)
		if err != nil {
			return
		}
		if c.ID == "" {
			t.Fatal("a cursor without an id was accepted")
		}
		if again, err := decodeListCursor(encodeListCursor(c)); err != nil || again != c {
			t.Fatalf("re-encoded cursor %+v: %+v %v", c, again, err)
		}
	})
}
