package runtime

import (
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/internal/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: S002-03 — archiving a native thread a marker block created removes its worktree
// and deletes its branch (no commits of its own); the archive result says so.
func TestS002_03_ArchivingACreatedThreadRemovesItsWorktree(t *testing.T) {
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}, operators: []string{"ops"}})
	c := th.client("bot")
	repo := gitRepo(t, filepath.Join(t.TempDir(), "native repo"), true)
	th.fake.Enqueue(fakemodel.Reply(fence("task-create", `{"prompt":"child work"}`)))
	author := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan", Cwd: repo}).Thread.ID
	m := &markerEnv{testHost: th, c: c}
	m.report(author)
	child := m.createdThreads(author, 1)[0]
	wt := waitStopped(t, c, child).Thread.Cwd
	if !exists(wt) || filepath.Dir(wt) != filepath.Join(th.home, "worktrees") {
		t.Fatalf("child cwd %s is not its own worktree", wt)
	}
	res := call[api.CatalogArchiveResult](t, th.client("ops"), api.MethodCatalogArchive, api.CatalogArchiveParams{Thread: child, ConfirmNoOtherRunner: true})
	if w := res.MarkerWorktree; !res.Archived || w == nil || !w.WorktreeRemoved || !w.BranchDeleted || w.Kept != "" {
		t.Fatalf("archive result %+v (worktree %+v)", res, res.MarkerWorktree)
	}
	if exists(wt) || branches(t, repo) != "" {
		t.Fatalf("left after archive: worktree %v, branches %q", exists(wt), branches(t, repo))
	}
}
