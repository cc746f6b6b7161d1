package cli

import (
	"bytes"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/runtime/api"
)

// The command a sessions table prints for a host's next page, pasted into a shell, asks for
// the same search (whatever its text holds: $, quotes, backslashes), the same page size and
// the same sort.
func TestSessionsNextPageCommandRepeatsTheListingThroughAShell(t *testing.T) {
	const search = `it's $HOME "x" \n`
	p := api.CatalogSessionsParams{Search: search, Limit: 5}
	res := api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", NextCursor: "cc1.abc",
		Sessions: []api.CatalogSession{{ID: "s-1", Title: "a title", Status: "idle"}}}}}
	var w bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetOut(&w)
	tf := tableFlags{columns: opview.SessionColumns, sort: "title"}
	printSessions(cmd, &tf, &w, res, search, sessionsAgain(p, true, tf.sort))
	var line string
	for l := range strings.Lines(w.String()) {
		if _, rest, ok := strings.Cut(l, "continue the search: "); ok {
			line = strings.TrimSpace(rest)
		}
	}
	if line == "" {
		t.Fatalf("no next-page command in:\n%s", w.String())
	}
	words := shWords(t, line)
	want := []string{"codexhost", "sessions", "--host", "gateway:local", "--cursor", "cc1.abc", "--search", search, "--limit", "5", "--sort", "title"}
	if !slices.Equal(words, want) {
		t.Fatalf("the shell reads %q as\n%q\nwant\n%q", line, words, want)
	}
}

// shWords is how a real sh splits line into words (each printed NUL-terminated).
func shWords(t *testing.T, line string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `printf '%s\0' `+line).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}
