package marker_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S002-03 — archiving a native thread a marker block created removes its worktree
// and deletes its branch (no commits of its own); the archive result says so.
func TestS002_03_ArchivingACreatedThreadRemovesItsWorktree(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}, Operators: []string{"ops"}})
	c := th.Client("bot")
	repo := gitRepo(t, filepath.Join(t.TempDir(), "native repo"), true)
	th.Fake.Enqueue(fakemodel.Reply(fence("task-create", `{"prompt":"child work"}`)))
	author := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan", Cwd: repo}).Thread.ID
	m := &markerEnv{Host: th, c: c}
	m.report(author)
	child := m.createdThreads(author, 1)[0]
	wt := hosttest.WaitStopped(t, c, child).Thread.Cwd
	if !exists(wt) || filepath.Dir(wt) != filepath.Join(th.Home, "worktrees") {
		t.Fatalf("child cwd %s is not its own worktree", wt)
	}
	res := hosttest.Call[api.CatalogArchiveResult](t, th.Client("ops"), api.MethodCatalogArchive, api.CatalogArchiveParams{Thread: child, ConfirmNoOtherRunner: true})
	if w := res.MarkerWorktree; !res.Archived || w == nil || !w.WorktreeRemoved || !w.BranchDeleted || w.Kept != "" {
		t.Fatalf("archive result %+v (worktree %+v)", res, res.MarkerWorktree)
	}
	if exists(wt) || branches(t, repo) != "" {
		t.Fatalf("left after archive: worktree %v, branches %q", exists(wt), branches(t, repo))
	}
}

// Scenario: S002-03 — a creation refused after its worktree was made (a sandboxed native
// author naming an external harness) leaves no worktree or branch behind.
func TestS002_03_RefusedCreationLeavesNoWorktree(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}})
	c := th.Client("bot")
	repo := gitRepo(t, t.TempDir(), true)
	th.Fake.Enqueue(fakemodel.Reply(fence("task-create", `{"name":"outside","prompt":"escape","harness":"shell"}`)))
	author := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan", Cwd: repo}).Thread.ID
	m := &markerEnv{Host: th, c: c}
	if r := m.report(author); !strings.Contains(r, `"outside": rejected (create_failed): PERMISSION_DENIED`) {
		t.Fatalf("report:\n%s", r)
	}
	if out := gitRun(t, repo, "worktree", "list"); strings.Count(out, "\n") != 1 || branches(t, repo) != "" {
		t.Fatalf("left behind:\n%s%s", out, branches(t, repo))
	}
}
