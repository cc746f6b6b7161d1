package shquote

import (
	"os/exec"
	"testing"
)

// Every word survives a real shell unchanged: spaces, quotes, $, backslashes, newlines.
func TestQuoteRoundTripsThroughSh(t *testing.T) {
	words := []string{"plain", "/path with space/codexhost", "it's", `a"b`, "$HOME", `back\slash`, "new\nline", "", "*", "codex://threads/01a2"}
	for _, w := range words {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("Quote(%q) = %s: sh printed %q (%v)", w, Quote(w), out, err)
		}
	}
	if got := Join("a b", "c"); got != "'a b' c" {
		t.Errorf("Join = %s", got)
	}
}
