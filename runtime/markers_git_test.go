package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// nextReport sends the author a turn that prints blocks and returns the report of that turn
// (the author's n-th report, 1-based).
func (m *markerEnv) nextReport(author, dir, blocks string, n int) string {
	m.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "blocks.md"), []byte(blocks), 0o600); err != nil {
		m.t.Fatal(err)
	}
	waitStopped(m.t, m.c, author)
	call[api.ThreadSendResult](m.t, m.c, api.MethodThreadSend, api.ThreadSendParams{Thread: author, Message: "next"})
	var got []string
	eventually(m.t, "the next marker report", func() bool { got = m.reports(author); return len(got) >= n })
	return got[n-1]
}

// Scenario: S002-08 (S002-04) — in a git repository, with and without a first commit, an
// author polls and cancels the thread it created: the created thread (in its own worktree,
// or sharing the cwd when there is no commit) is in the author's project, the repository.
func TestS002_08_GitAuthorControlsTheThreadsItCreated(t *testing.T) {
	for _, tc := range []struct {
		name   string
		commit bool
		where  string
	}{{"with a commit", true, "in its own worktree"}, {"git init only", false, "sharing your cwd"}} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMarkerEnv(t, nil)
			repo := gitRepo(t, filepath.Join(t.TempDir(), "a repo"), tc.commit)
			author := m.author(repo, fence("task-create", `{"name":"sleeper","prompt":"p","harness":"sleep"}`))
			first := m.report(author)
			if !strings.Contains(first, `1. task-create "sleeper": accepted`) || !strings.Contains(first, tc.where) {
				t.Fatalf("creation report:\n%s", first)
			}
			if !tc.commit && !strings.Contains(first, "no commit yet") {
				t.Fatalf("the report does not say why the cwd is shared:\n%s", first)
			}
			child := m.createdThreads(author, 1)[0]
			eventually(t, "the child running", func() bool { return readThread(t, m.c, child).Thread.Status == model.ThreadActive })
			r := m.nextReport(author, repo, fence("task-read", `{"task_id":"`+child+`"}`)+fence("task-cancel", `{"task_id":"`+child+`"}`), 2)
			if strings.Contains(r, "other_project") || !strings.Contains(r, "2. task-cancel: accepted") || !strings.Contains(r, "1. task-read: accepted") {
				t.Fatalf("control report:\n%s", r)
			}
			if st := waitStopped(t, m.c, child).Thread.LastTurn.Status; st != model.TurnInterrupted {
				t.Fatalf("child after cancel: %s", st)
			}
		})
	}
}

// Scenario: S002-03 — a worktree folder inside the repository is refused with the reason:
// created threads' worktrees never live in the repository's tree.
func TestS002_03_WorktreeDirInsideTheRepositoryIsRefused(t *testing.T) {
	repo := gitRepo(t, t.TempDir(), true)
	m := newMarkerEnv(t, func(c *config.Config) { c.Markers.WorktreeDir = filepath.Join(repo, "trees") })
	author := m.author(repo, fence("task-create", `{"prompt":"p","harness":"shell"}`))
	if r := m.report(author); !strings.Contains(r, "1. task-create: rejected (create_refused): the worktree folder") || !strings.Contains(r, "inside the repository") {
		t.Fatalf("report:\n%s", r)
	}
	if out := gitRun(t, repo, "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Fatalf("a worktree was made:\n%s", out)
	}
}

// Scenario: S002-09 — the generation limit counts marker generations along the whole chain
// of origins: a thread delegated (delegate start) by the third generation is still below it,
// so its own task-create is refused.
func TestS002_09_GenerationLimitCountsThroughADelegation(t *testing.T) {
	m := newMarkerEnv(t, nil)
	commitBlocks(t, m.cwd, fence("task-create", `{"prompt":"next generation"}`))
	author := m.start("author", "first generation", m.cwd)
	var lin api.ThreadLineageResult
	eventually(t, "three generations", func() bool {
		lin = call[api.ThreadLineageResult](t, m.c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: author})
		return len(lin.Nodes) == 4 && lin.Nodes[3].Marker != nil
	})
	third := lin.Nodes[3].Thread.ID
	if r := m.report(third); !strings.Contains(r, "skipped (generation_limit)") {
		t.Fatalf("third generation's report:\n%s", r)
	}
	thirdCwd := readThread(t, m.c, third).Thread.Cwd
	// The third generation delegates; the delegated thread prints the same block.
	d := delegate(t, m.runtimeClient(), api.DelegateStartParams{Caller: api.CallerHint{ParentThread: third}, Harness: "author", Task: "delegated", Cwd: thirdCwd})
	if r := m.report(d.Thread.ID); !strings.Contains(r, "1. task-create: skipped (generation_limit)") {
		t.Fatalf("the delegated thread's report:\n%s", r)
	}
	if n, err := m.Store().MarkerChildren(model.ThreadID(d.Thread.ID)); err != nil || n != 0 {
		t.Fatalf("the delegated thread created %d threads (%v)", n, err)
	}
}
