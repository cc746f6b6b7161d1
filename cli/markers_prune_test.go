package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

// markers prune --dry-run prints what it would remove and removes nothing; markers prune
// removes the worktree and branch of an ended created thread and prints it.
func TestMarkersPrunePrintsWhatItRemoved(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "chk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	script := `p=$(cat); case "$p" in *"codexhost marker report"*) exit 0;; esac; printf '%s\n' '` + "```task-create" + `' '{"prompt":"p","harness":"shell"}' '` + "```" + `'`
	cfg := &config.Config{Harnesses: map[string]config.Harness{"author": {Command: []string{"sh", "-c", script}}, "shell": {Command: []string{"cat"}}}}
	if err := config.Save(home, cfg); err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(t.TempDir(), "a repo")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "commit", "--allow-empty", "-qm", "base")
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	host := serveRuntime(t, home, environ)
	setenv(t, envHome, home)
	setenv(t, envClientToken, "")
	res, err := host.Threads().Delegate(context.Background(), api.Caller{Kind: api.CallerClient, Client: "bot"}, api.DelegateStartParams{Harness: "author", Task: "go", Cwd: repo})
	if err != nil {
		t.Fatal(err)
	}
	child := ""
	for deadline := time.Now().Add(30 * time.Second); child == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no created thread")
		}
		m, err := host.Markers().ThreadMarkers(context.Background(), api.ThreadMarkersParams{Thread: res.Thread.ID})
		if err == nil && len(m.Audit) == 1 {
			child = string(m.Audit[0].Created)
		}
	}
	var prune api.MarkersPruneResult
	for deadline := time.Now().Add(30 * time.Second); len(prune.Threads) != 1 || prune.Threads[0].Active != ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			rd, err := host.Threads().Read(context.Background(), api.ThreadReadParams{Thread: child})
			t.Fatalf("the created thread did not end: %+v\n%+v %v", prune, rd.Thread, err)
		}
		prune = api.MarkersPruneResult{}
		out, errOut, code := run(t, "markers", "prune", "--dry-run", "--json")
		if code != 0 || json.Unmarshal([]byte(out), &prune) != nil {
			t.Fatalf("prune --dry-run --json (%d): %s %s", code, out, errOut)
		}
	}
	wt := prune.Threads[0].Cleanup.Worktree
	out, _, code := run(t, "markers", "prune", "--dry-run")
	if code != 0 || !strings.Contains(out, "would remove worktree "+wt) || !strings.Contains(out, "would delete branch codexhost/marker-") {
		t.Fatalf("dry run (%d):\n%s", code, out)
	}
	if _, err := os.Stat(wt); err != nil {
		t.Fatalf("the dry run removed the worktree: %v", err)
	}
	out, _, code = run(t, "markers", "prune")
	if code != 0 || !strings.Contains(out, "thread codex://threads/"+child) || !strings.Contains(out, "removed worktree "+wt) || !strings.Contains(out, "deleted branch codexhost/marker-") {
		t.Fatalf("prune (%d):\n%s", code, out)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) || strings.Contains(gitIn(t, repo, "branch"), "marker-") {
		t.Fatalf("left after prune: %v\n%s", err, gitIn(t, repo, "branch"))
	}
	if out, _, _ := run(t, "markers", "prune"); !strings.Contains(out, "no marker worktrees or branches") {
		t.Fatalf("second prune:\n%s", out)
	}
}

// A worktree no record names (a runtime stopped while creating its thread) is printed as
// such, not as a link to a thread with no id.
func TestMarkersPrunePrintsAWorktreeWithoutThread(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	printPrune(&b, api.MarkersPruneResult{Threads: []api.MarkerPruneItem{{Cleanup: model.MarkerCleanup{Worktree: "/w/x", Branch: "codexhost/marker-x", WorktreeRemoved: true, BranchDeleted: true}}}})
	if got := b.String(); strings.Contains(got, "codex://threads/\n") || !strings.Contains(got, "no thread (the runtime stopped while creating it)\n  removed worktree /w/x\n  deleted branch codexhost/marker-x") {
		t.Fatalf("printed:\n%s", got)
	}
}
