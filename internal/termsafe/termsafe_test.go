package termsafe

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	cases := map[string]string{
		"plain text":                     "plain text",
		"two\nlines\tand tab":            "two\nlines\tand tab",
		"héllo 世界 🙂":                     "héllo 世界 🙂",
		"\x1b]0;owned\x07":               "<U+001B>]0;owned<U+0007>",
		"\x1b]52;c;aGk=\x1b\\":           "<U+001B>]52;c;aGk=<U+001B>\\",
		"\x1b[2J":                        "<U+001B>[2J",
		"a\rb":                           "a<U+000D>b",
		"c1 \u009b31m":                   "c1 <U+009B>31m",
		"del\x7f":                        "del<U+007F>",
		"abc\u202Eevil":                  "abc<U+202E>evil",
		"\u2066\u2069\u200e\u200f\u061c": "<U+2066><U+2069><U+200E><U+200F><U+061C>",
		"bad \xff\x9b byte":              "bad \uFFFD\uFFFD byte",
	}
	for in, want := range cases {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("a\nb\tc\x1b"); got != "a b c<U+001B>" {
		t.Errorf("Line = %q", got)
	}
}

func TestWriterSplitsRunes(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	in := "x\u202Ey世\x1b[2J"
	for i := 0; i < len(in); i++ {
		if _, err := w.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if got, want := out.String(), String(in); got != want {
		t.Fatalf("byte-wise writes gave %q, want %q", got, want)
	}
	if Unwrap(w) != &out || NewWriter(w) != w {
		t.Fatal("Unwrap or NewWriter does not see the Writer")
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b]0;t\x07", "\u202E", "\xff\xfe", "a\u009bb", "\t\n\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := String(s)
		if !Safe(got) {
			t.Fatalf("String(%q) = %q still unsafe", s, got)
		}
		if String(got) != got {
			t.Fatalf("String is not idempotent on %q", s)
		}
		if utf8.ValidString(s) && !needs(s) && got != s {
			t.Fatalf("safe text %q changed to %q", s, got)
		}
		if l := Line(s); strings.ContainsAny(l, "\n\t") || !Safe(l) {
			t.Fatalf("Line(%q) = %q", s, l)
		}
	})
}
