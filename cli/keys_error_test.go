package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// A bad [keys] table is one error, readable as text: a count, then each entry on its own line
// with a suggestion for a misspelt action.
func TestBadKeysAreReportedOnceReadably(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	cfg := "[keys]\n\"thread.archiv\" = \"A\"\n\"fleet.nope\" = \"ctrl+q\"\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadKeymap(home)
	text := model.AsError(err).Text()
	want := "error: INVALID_ARGUMENT: config.toml [keys]: 2 problems\n" +
		"  [keys] \"fleet.nope\": unknown action; the actions of fleet are \"fleet.search\", \"fleet.clearSearch\" or \"fleet.continue\"\n" +
		"  [keys] \"thread.archiv\": unknown action; did you mean \"thread.archive\"?\n" +
		"hint: fix or remove these entries in " + filepath.Join(home, "config.toml") + "\n"
	if text != want {
		t.Fatalf("got\n%s\nwant\n%s", text, want)
	}
	if strings.Count(text, "thread.archiv\"") != 1 {
		t.Fatal("an entry is reported more than once")
	}
}
