package model

import (
	"strings"
	"testing"
)

const (
	v7ID = "0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b" // a native Codex id (UUIDv7)
	v4ID = "f47ac10b-58cc-4372-a567-0e02b2c3d479" // an external harness id (UUIDv4)
)

func TestParseThreadID(t *testing.T) {
	tests := []struct {
		name, in string
		want     ThreadID
	}{
		{"bare v7", v7ID, v7ID},
		{"bare v4", v4ID, v4ID},
		{"nil uuid is well-formed", "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"},
		{"uppercase is lowered", strings.ToUpper(v7ID), v7ID},
		{"mixed case is lowered", "0199A3B4-5c6d-7E8F-9a0b-1C2D3E4F5A6B", v7ID},
		{"surrounding whitespace", " \t" + v7ID + "\n", v7ID},
		{"link", "codex://threads/" + v7ID, v7ID},
		{"link with trailing slash", "codex://threads/" + v7ID + "/", v7ID},
		{"link scheme and host in any case", "CODEX://Threads/" + strings.ToUpper(v4ID), v4ID},
		{"link with surrounding whitespace", "\n codex://threads/" + v4ID + " \r\n", v4ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseThreadID(tt.in)
			if err != nil {
				t.Fatalf("ParseThreadID(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Fatalf("ParseThreadID(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseThreadIDRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"empty", ""},
		{"only whitespace", " \n\t"},
		{"empty link", "codex://threads/"},
		{"link with only a slash", "codex://threads//"},
		{"too short", v7ID[:35]},
		{"too long", v7ID + "0"},
		{"no hyphens", strings.ReplaceAll(v7ID, "-", "")},
		{"hyphen misplaced", "0199a3b45-c6d-7e8f-9a0b-1c2d3e4f5a6b"},
		{"non-hex digit", "0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6g"},
		{"braces", "{" + v7ID + "}"},
		{"urn form", "urn:uuid:" + v7ID},
		{"whitespace inside", "0199a3b4-5c6d-7e8f-9a0b 1c2d3e4f5a6b"},
		{"whitespace inside link", "codex://threads/ " + v7ID},
		{"bare id with trailing slash", v7ID + "/"},
		{"two trailing slashes", "codex://threads/" + v7ID + "//"},
		{"other scheme", "https://threads/" + v7ID},
		{"other host", "codex://thread/" + v7ID},
		{"single slash", "codex:/threads/" + v7ID},
		{"query", "codex://threads/" + v7ID + "?x=1"},
		{"fragment", "codex://threads/" + v7ID + "#top"},
		{"extra segment", "codex://threads/" + v7ID + "/turns"},
		{"nested link", "codex://threads/codex://threads/" + v7ID},
		{"non-ASCII digit", "0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6٣"},
		{"huge", strings.Repeat("x", 1<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseThreadID(tt.in)
			if err == nil {
				t.Fatalf("ParseThreadID(%q) = %q, want an error", tt.in, got)
			}
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error is %T, want *Error", err)
			}
			if e.Code != CodeInvalidArgument {
				t.Errorf("code = %s, want %s", e.Code, CodeInvalidArgument)
			}
			if !strings.Contains(e.Hint, "codex://threads/<uuid>") || !strings.Contains(e.Hint, "bare UUID") {
				t.Errorf("hint %q does not name the accepted forms", e.Hint)
			}
			if len(e.Message) > 200 {
				t.Errorf("message is %d bytes long, want it bounded: %.200q…", len(e.Message), e.Message)
			}
			if got != "" {
				t.Errorf("got %q alongside the error, want the zero ThreadID", got)
			}
		})
	}
}

func TestParseThreadIDMessageNamesInput(t *testing.T) {
	_, err := ParseThreadID("not-a-thread")
	if err == nil || !strings.Contains(err.(*Error).Message, `"not-a-thread"`) {
		t.Fatalf("error %v does not quote the input", err)
	}
	long := "codex://threads/" + strings.Repeat("ab", 500)
	_, err = ParseThreadID(long)
	msg := err.(*Error).Message
	if !strings.Contains(msg, "codex://threads/abab") || !strings.Contains(msg, "(1016 characters)") {
		t.Fatalf("message %q should start quoting the input and give its length", msg)
	}
}

// S000-21: a deep link is normalised to the thread id, and the bare id gives the same result.
func TestS000_21_DeepLinkAndBareIDAreTheSameThread(t *testing.T) {
	fromLink, err := ParseThreadID("codex://threads/" + strings.ToUpper(v7ID))
	if err != nil {
		t.Fatal(err)
	}
	fromBare, err := ParseThreadID(v7ID)
	if err != nil {
		t.Fatal(err)
	}
	if fromLink != fromBare || fromLink.String() != v7ID {
		t.Fatalf("link gave %q, bare id gave %q; want both %q", fromLink, fromBare, v7ID)
	}
}

func TestThreadIDStringAndLink(t *testing.T) {
	id := ThreadID(v4ID)
	if id.String() != v4ID {
		t.Errorf("String() = %q", id.String())
	}
	if want := "codex://threads/" + v4ID; id.Link() != want {
		t.Errorf("Link() = %q, want %q", id.Link(), want)
	}
	back, err := ParseThreadID(id.Link())
	if err != nil || back != id {
		t.Errorf("ParseThreadID(Link()) = %q, %v; want %q", back, err, id)
	}
}

func FuzzParseThreadID(f *testing.F) {
	for _, s := range []string{
		v7ID, v4ID, strings.ToUpper(v7ID), " " + v4ID + "\n",
		"codex://threads/" + v7ID, "codex://threads/" + v7ID + "/", "CODEX://THREADS/" + v4ID,
		"codex://threads/", "codex://threads/" + v7ID + "?x", "", "-", "{" + v7ID + "}",
		"00000000-0000-0000-0000-000000000000", "0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6٣",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseThreadID(s)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Code != CodeInvalidArgument {
				t.Fatalf("error %#v is not an INVALID_ARGUMENT *Error", err)
			}
			if id != "" {
				t.Fatalf("non-zero id %q with an error", id)
			}
			return
		}
		if _, ok := canonicalUUID(string(id)); !ok || strings.ToLower(string(id)) != string(id) {
			t.Fatalf("ParseThreadID(%q) = %q, not a lowercase canonical UUID", s, id)
		}
		again, err := ParseThreadID(id.String())
		if err != nil || again != id {
			t.Fatalf("bare id %q parses to %q, %v", id, again, err)
		}
		viaLink, err := ParseThreadID(id.Link())
		if err != nil || viaLink != id {
			t.Fatalf("link %q parses to %q, %v; want %q", id.Link(), viaLink, err, id)
		}
	})
}
