package harness

import (
	"testing"

	"github.com/codexhost/codexhost/model"
)

// A thread's tokens, bound at minting or later, open nothing once the thread has ended; the
// tokens of other threads keep working.
func TestTokensOfAnEndedThreadAreWorthless(t *testing.T) {
	t.Parallel()
	tk := NewTokens()
	a, b := model.ThreadID("thread-a"), model.ThreadID("thread-b")
	minted := tk.ForThread(a)
	late, bind := tk.ForNew()
	bind(a)
	other := tk.ForThread(b)
	for _, tok := range []string{minted, late} {
		if id, ok := tk.Thread(tok); !ok || id != a {
			t.Fatalf("before the end: %q %v", id, ok)
		}
	}
	tk.End(a)
	for _, tok := range []string{minted, late} {
		if _, ok := tk.Thread(tok); ok {
			t.Fatal("a token of an ended thread still names it")
		}
	}
	if id, ok := tk.Thread(other); !ok || id != b {
		t.Fatalf("another thread's token: %q %v", id, ok)
	}
}
