package runtime

import (
	"path/filepath"
	"strings"
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

// Scenario: S002-03 — a creation refused after its worktree was made (a sandboxed native
// author naming an external harness) leaves no worktree or branch behind.
func TestS002_03_RefusedCreationLeavesNoWorktree(t *testing.T) {
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}})
	c := th.client("bot")
	repo := gitRepo(t, t.TempDir(), true)
	th.fake.Enqueue(fakemodel.Reply(fence("task-create", `{"name":"outside","prompt":"escape","harness":"shell"}`)))
	author := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan", Cwd: repo}).Thread.ID
	m := &markerEnv{testHost: th, c: c}
	if r := m.report(author); !strings.Contains(r, `"outside": rejected (create_failed): PERMISSION_DENIED`) {
		t.Fatalf("report:\n%s", r)
	}
	if out := gitRun(t, repo, "worktree", "list"); strings.Count(out, "\n") != 1 || branches(t, repo) != "" {
		t.Fatalf("left behind:\n%s%s", out, branches(t, repo))
	}
}
