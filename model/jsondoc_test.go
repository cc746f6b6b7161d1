package model

import (
	"strings"
	"testing"
)

// A malformed or trailing-data handoff file names the place to fix, as the caller's error.
func TestJSONDocumentLineColumn(t *testing.T) {
	cases := []struct {
		in        string
		line, col int
	}{
		{"{\n  \"title\": \"a\",\n  \"objective\" \"b\"\n}", 3, 15},
		{"{\"title\":\"a\"}\n{\"title\":\"b\"}", 2, 1},
		{"{\"title\":\"a\"} trailing", 1, 15},
		{"{\"title\":", 1, 10},
		{"", 1, 1},
		{"{\"a\":1}x", 1, 8},
	}
	for _, c := range cases {
		_, err := JSONDocument("h.json", []byte(c.in))
		e := AsError(err)
		if err == nil || e.Code != CodeInvalidArgument {
			t.Fatalf("%q: got %v, want INVALID_ARGUMENT", c.in, err)
		}
		if e.Details["line"] != c.line || e.Details["column"] != c.col {
			t.Errorf("%q: at %v:%v, want %d:%d (%s)", c.in, e.Details["line"], e.Details["column"], c.line, c.col, e.Message)
		}
		if !strings.Contains(e.Message, "line ") || !strings.Contains(e.Message, "h.json") {
			t.Errorf("message %q", e.Message)
		}
	}
	if raw, err := JSONDocument("h.json", []byte(` {"title":"a"} `)); err != nil || len(raw) == 0 {
		t.Fatalf("a valid document: %v", err)
	}
}
