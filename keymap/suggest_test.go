package keymap

import (
	"strings"
	"testing"
)

func TestUnknownActionSuggestsTheNearestName(t *testing.T) {
	for name, want := range map[string]string{
		"thread.archiv":     `unknown action; did you mean "thread.archive"?`,
		"Thread.Archive":    `unknown action; did you mean "thread.archive"?`,
		"list.pagedwon":     `unknown action; did you mean "list.pageDown"?`,
		"thread.frobnicate": `unknown action; the actions of thread are "thread.archive", "thread.send"`,
		"nope.nothing":      "unknown action; names are scope.action, the scopes approval, dialog, fleet, global, input, lineage, list, setup, tasks, thread, transcript",
	} {
		km := Default()
		err := Apply(&km, map[string]any{name: "z"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
		if strings.Count(err.Error(), "list.pageUp") > 1 {
			t.Errorf("%s: the action names are listed more than once: %v", name, err)
		}
	}
}

// A key that clashes with one action in several panes is one problem naming them all.
func TestAClashInSeveralPanesIsReportedOnce(t *testing.T) {
	km := Default()
	err := Apply(&km, map[string]any{"global.help": "j"})
	if err == nil {
		t.Fatal("accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"j" is bound to both "global.help" and "list.down", which are both live in the fleet pane and the lineage pane`) ||
		!strings.Contains(lines[1], `"global.help" and "transcript.down", which are both live in the transcript pane`) {
		t.Fatalf("%d problems: %v", len(lines), err)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "abd", 1}, {"archiv", "archive", 1}, {"修复", "修", 1}, {"kitten", "sitting", 3}} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
