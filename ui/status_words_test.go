package ui

import (
	"testing"

	"github.com/codexhost/codexhost/model"
)

// People read one set of words for states; the raw word shows beside it in the detail view.
func TestStatusWordsAreOneMappingForPeople(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		model.ThreadNotLoaded: "stored", model.ThreadActive: "running", model.ThreadIdle: "idle",
		model.ThreadSystemError: "error", "error": "error", model.TurnInProgress: "running",
		model.TurnFailed: "error", model.TurnInterrupted: "interrupted", model.TurnCompleted: "completed",
		"": "unknown", "weird\x1b[31m": "weird<U+001B>[31m",
	}
	for raw, want := range cases {
		if got := statusWord(raw); got != want {
			t.Errorf("statusWord(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := rawStatus(model.ThreadNotLoaded); got != "stored (notLoaded)" {
		t.Fatalf("rawStatus: %q", got)
	}
	if got := rawStatus(model.ThreadIdle); got != "idle" {
		t.Fatalf("rawStatus of a word people read already: %q", got)
	}
	// The badge, the long form and the turn header say the same word.
	c := newTestApp(t, newFake(), 120, 35).c
	for _, raw := range []string{model.ThreadNotLoaded, model.ThreadActive, model.ThreadIdle, model.ThreadSystemError} {
		mustContain(t, c.badge(raw, false, false), statusWord(raw))
		mustContain(t, statusWords(raw, false), statusWord(raw))
	}
	if turnWords(model.TurnFailed) != "error" || turnWords(model.TurnInProgress) != "running" || turnWords("") != "" {
		t.Fatal("turn words differ from the status words")
	}
}
