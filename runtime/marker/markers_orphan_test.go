package marker_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/marker"
)

// Scenario: S002-03 — a runtime killed after a task-create block made its worktree, before
// the created thread's record kept it, leaves a worktree and branch no record names (the
// block is reported interrupted_by_restart). markers.prune finds it in the worktree folder
// and removes it (--dry-run changes nothing); one a thread works in is listed and kept, and
// what is not a marker worktree in that folder is left alone.
func TestS002_03_PruneRemovesWorktreesARestartOrphaned(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Operators: []string{"ops"}, Harnesses: markerHarnesses()})
	ops := th.Client("ops")
	repo := gitRepo(t, filepath.Join(t.TempDir(), "my repo"), true)
	root := filepath.Join(th.Home, "worktrees")
	orphan, err := marker.AddWorktree(ctx, repo, root, "01a249a9-e672-70b6-8fcc-e5ae0dda6167")
	if err != nil {
		t.Fatal(err)
	}
	used, err := marker.AddWorktree(ctx, repo, root, "01a249a9-e672-70b6-8fcc-e5ae0dda6168")
	if err != nil {
		t.Fatal(err)
	}
	user := hosttest.Delegate(t, th.Client("bot"), api.DelegateStartParams{Harness: "shell", Task: "in the worktree", Cwd: used.Cwd}).Thread.ID
	hosttest.WaitStopped(t, th.Client("bot"), user)
	// Not ours: a worktree of another branch and a plain folder.
	gitRun(t, repo, "worktree", "add", "-q", "-b", "mine", filepath.Join(root, "mine"))
	if err := os.Mkdir(filepath.Join(root, "notes"), 0o700); err != nil {
		t.Fatal(err)
	}

	dry := hosttest.Call[api.MarkersPruneResult](t, ops, api.MethodMarkersPrune, api.MarkersPruneParams{DryRun: true})
	if len(dry.Threads) != 2 || !dry.Threads[0].Cleanup.WorktreeRemoved || !dry.Threads[0].Cleanup.BranchDeleted || !exists(orphan.Path) {
		t.Fatalf("dry run: %+v", dry.Threads)
	}
	res := hosttest.Call[api.MarkersPruneResult](t, ops, api.MethodMarkersPrune, api.MarkersPruneParams{})
	if len(res.Threads) != 2 {
		t.Fatalf("prune listed %+v, want the orphan and the used worktree", res.Threads)
	}
	if it := res.Threads[0]; it.Thread != "" || it.Cleanup.Worktree != orphan.Path || !it.Cleanup.WorktreeRemoved || !it.Cleanup.BranchDeleted || exists(orphan.Path) {
		t.Fatalf("orphan: %+v", it)
	}
	if it := res.Threads[1]; it.Thread != user || it.Active == "" || it.Cleanup.WorktreeRemoved || !exists(used.Path) {
		t.Fatalf("worktree a thread works in: %+v", it)
	}
	if got := branches(t, repo); strings.Contains(got, orphan.Branch) || !strings.Contains(got, used.Branch) {
		t.Fatalf("branches left:\n%s", got)
	}
	if !exists(filepath.Join(root, "mine")) || !exists(filepath.Join(root, "notes")) || !strings.Contains(gitRun(t, repo, "branch"), "mine") {
		t.Fatal("prune touched what is not a marker worktree")
	}
}
