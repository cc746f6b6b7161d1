package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
)

// completions runs the shell's completion request and returns its candidates' values.
func completions(t *testing.T, args ...string) []string {
	t.Helper()
	out, errOut, code := run(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: %d %s", args, code, errOut)
	}
	var vals []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, ":") {
			continue
		}
		v, _, _ := strings.Cut(l, "\t")
		vals = append(vals, v)
	}
	return vals
}

// Thread, host and harness ids complete from the runtime holding the home.
func TestCompletionOffersIdsFromTheRunningRuntime(t *testing.T) {
	t.Parallel()
	home, _ := appHome(t)
	s, err := openOperator(testCtx(t), home, operatorCommand{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := delegate(t, s, api.DelegateStartParams{Harness: "shell", Task: "a task", Cwd: t.TempDir()})

	for _, args := range [][]string{{"thread", "read", ""}, {"thread", "send", id[:4]}, {"lineage", ""}, {"thread", "watch", "x", "--notify", ""}} {
		if got := completions(t, args...); !contains(got, id) {
			t.Errorf("%v: %v lacks %s", args, got, id)
		}
	}
	if got := completions(t, "thread", "read", id, ""); len(got) != 0 {
		t.Errorf("a second argument is offered: %v", got)
	}
	if got := completions(t, "sessions", "--host", ""); !contains(got, "gateway:local") {
		t.Errorf("--host: %v", got)
	}
	if got := completions(t, "delegate", "start", "--harness", "sh"); !contains(got, "shell") || contains(got, "slow") {
		t.Errorf("--harness sh: %v", got)
	}
}

// Without a runtime a completion offers nothing, quickly, and starts nothing: no runtime, no
// operator token, no database.
func TestCompletionWithoutARuntimeIsQuietAndStartsNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	setenv(t, envHome, home)
	setenv(t, envClientToken, "")
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "")
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	if got := completions(t, "thread", "read", ""); len(got) != 0 {
		t.Fatalf("candidates without a runtime: %v", got)
	}
	if got := completions(t, "continue", "--host", ""); len(got) != 0 {
		t.Fatalf("candidates without a runtime: %v", got)
	}
	entries, _ := os.ReadDir(home)
	for _, e := range entries {
		t.Errorf("a completion wrote %s", filepath.Join(home, e.Name()))
	}
}

func TestCompletionScriptsAreGenerated(t *testing.T) {
	t.Parallel()
	for shell, want := range map[string]string{"bash": "__start_codexhost", "zsh": "#compdef codexhost", "fish": "complete -c codexhost"} {
		out, _, code := run(t, "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("completion %s: %d, lacks %q", shell, code, want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// A session's completion says its state as the sessions table does, never the App Server's
// raw notLoaded or systemError.
func TestSessionCandidatesUseTheStatusWordsOfPeople(t *testing.T) {
	t.Parallel()
	for raw, word := range map[string]string{"notLoaded": "stored", "systemError": "error", "active": "running", "idle": "idle"} {
		got := sessionCandidate("gateway:local", api.CatalogSession{ID: "019a", Status: raw, Title: "t"})
		if want := "019a\tgateway:local · " + word + " · t"; got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}
