package marker_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// nextReport sends the author a turn that prints blocks and returns the report of that turn
// (the author's n-th report, 1-based).
func (m *markerEnv) nextReport(author, dir, blocks string, n int) string {
	m.T.Helper()
	if err := os.WriteFile(filepath.Join(dir, "blocks.md"), []byte(blocks), 0o600); err != nil {
		m.T.Fatal(err)
	}
	hosttest.WaitStopped(m.T, m.c, author)
	hosttest.Call[api.ThreadSendResult](m.T, m.c, api.MethodThreadSend, api.ThreadSendParams{Thread: author, Message: "next"})
	var got []string
	hosttest.Eventually(m.T, "the next marker report", func() bool { got = m.reports(author); return len(got) >= n })
	return got[n-1]
}

// Scenario: S002-08 (S002-04) — in a git repository, with and without a first commit, an
// author polls and cancels the thread it created: the created thread (in its own worktree,
// or sharing the cwd when there is no commit) is in the author's project, the repository.
func TestS002_08_GitAuthorControlsTheThreadsItCreated(t *testing.T) {
	t.Parallel()
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
			hosttest.Eventually(t, "the child running", func() bool { return hosttest.ReadThread(t, m.c, child).Thread.Status == model.ThreadActive })
			r := m.nextReport(author, repo, fence("task-read", `{"task_id":"`+child+`"}`)+fence("task-cancel", `{"task_id":"`+child+`"}`), 2)
			if strings.Contains(r, "other_project") || !strings.Contains(r, "2. task-cancel: accepted") || !strings.Contains(r, "1. task-read: accepted") {
				t.Fatalf("control report:\n%s", r)
			}
			if st := hosttest.WaitStopped(t, m.c, child).Thread.LastTurn.Status; st != model.TurnInterrupted {
				t.Fatalf("child after cancel: %s", st)
			}
		})
	}
}

// Scenario: S002-03 — a worktree folder inside the repository is refused with the reason:
// created threads' worktrees never live in the repository's tree.
func TestS002_03_WorktreeDirInsideTheRepositoryIsRefused(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	m := newMarkerEnv(t, nil)
	commitBlocks(t, m.cwd, fence("task-create", `{"prompt":"next generation"}`))
	author := m.start("author", "first generation", m.cwd)
	var lin api.ThreadLineageResult
	hosttest.Eventually(t, "three generations", func() bool {
		lin = hosttest.Call[api.ThreadLineageResult](t, m.c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: author})
		return len(lin.Nodes) == 4 && lin.Nodes[3].Marker != nil
	})
	third := lin.Nodes[3].Thread.ID
	if r := m.report(third); !strings.Contains(r, "skipped (generation_limit)") {
		t.Fatalf("third generation's report:\n%s", r)
	}
	thirdCwd := hosttest.ReadThread(t, m.c, third).Thread.Cwd
	// The third generation delegates; the delegated thread prints the same block.
	d := hosttest.Delegate(t, m.RuntimeClient(), api.DelegateStartParams{Caller: api.CallerHint{ParentThread: third}, Harness: "author", Task: "delegated", Cwd: thirdCwd})
	if r := m.report(d.Thread.ID); !strings.Contains(r, "1. task-create: skipped (generation_limit)") {
		t.Fatalf("the delegated thread's report:\n%s", r)
	}
	if n, err := m.Store().MarkerChildren(model.ThreadID(d.Thread.ID)); err != nil || n != 0 {
		t.Fatalf("the delegated thread created %d threads (%v)", n, err)
	}
}

// pruneItem finds a thread's row of a prune result.
func pruneItem(t *testing.T, res api.MarkersPruneResult, id string) api.MarkerPruneItem {
	t.Helper()
	for _, it := range res.Threads {
		if it.Thread == id {
			return it
		}
	}
	t.Fatalf("thread %s not listed: %+v", id, res.Threads)
	return api.MarkerPruneItem{}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func branches(t *testing.T, repo string) string {
	t.Helper()
	return gitRun(t, repo, "branch", "--list", "codexhost/marker-*")
}

// Scenario: S002-03 — markers.prune removes the worktrees of created threads that ended and
// deletes their branches without commits of their own; a branch with a commit is kept and
// listed again; a running thread and one a watch will notify are left alone until they
// end. --dry-run changes nothing. Paths have spaces; the worktrees live in [markers]
// worktree_dir, outside the repository.
func TestS002_03_PruneRemovesWhatEndedThreadsLeft(t *testing.T) {
	t.Parallel()
	trees := filepath.Join(t.TempDir(), "work trees")
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Operators: []string{"ops"}, Harnesses: markerHarnesses()})
	th.Cfg.Markers.WorktreeDir = trees
	if err := config.Save(th.Home, th.Cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart()
	m := &markerEnv{Host: th, c: th.Client("bot"), cwd: gitRepo(t, filepath.Join(t.TempDir(), "my repo"), true)}
	ops := th.Client("ops")
	author := m.author(m.cwd, fence("task-create", `{"prompt":"clean","harness":"shell"}`)+
		fence("task-create", `{"prompt":"commits","harness":"shell"}`)+fence("task-create", `{"prompt":"runs","harness":"sleep"}`))
	m.report(author)
	ids := m.createdThreads(author, 3)
	clean, committed, running := ids[0], ids[1], ids[2]
	wt := map[string]string{}
	for _, id := range ids {
		wt[id] = hosttest.ReadThread(t, m.c, id).Thread.Cwd
		if !strings.HasPrefix(wt[id], trees+string(filepath.Separator)) {
			t.Fatalf("worktree %s is not under worktree_dir %s", wt[id], trees)
		}
	}
	hosttest.WaitStopped(t, m.c, clean)
	hosttest.WaitStopped(t, m.c, committed)
	gitRun(t, wt[committed], "commit", "--allow-empty", "-qm", "work of its own")
	// A watch that will notify the clean thread keeps it until the notification is delivered.
	slowDir := t.TempDir()
	slow := m.start("slow", "slow", slowDir)
	hosttest.Call[api.WatchResult](t, m.c, api.MethodThreadWatch, api.ThreadWatchParams{Thread: slow, Notify: clean})

	dry := hosttest.Call[api.MarkersPruneResult](t, ops, api.MethodMarkersPrune, api.MarkersPruneParams{DryRun: true})
	if it := pruneItem(t, dry, committed); !it.Cleanup.WorktreeRemoved || it.Cleanup.BranchDeleted || it.Cleanup.OwnCommits != 1 {
		t.Fatalf("dry run, committed thread: %+v", it)
	}
	for id, want := range map[string]string{clean: "a watch is watching", running: "its turn is running"} {
		if it := pruneItem(t, dry, id); it.Active != want {
			t.Fatalf("dry run, %s: %+v, want active %q", id, it, want)
		}
	}
	if !exists(wt[committed]) || strings.Count(branches(t, m.cwd), "marker-") != 3 {
		t.Fatalf("the dry run changed something: %s", branches(t, m.cwd))
	}

	res := hosttest.Call[api.MarkersPruneResult](t, ops, api.MethodMarkersPrune, api.MarkersPruneParams{})
	if it := pruneItem(t, res, committed); !it.Cleanup.WorktreeRemoved || it.Cleanup.BranchDeleted || !strings.Contains(it.Cleanup.Kept, "the branch has a commit of its own") {
		t.Fatalf("committed thread: %+v", it)
	}
	if exists(wt[committed]) || !exists(wt[clean]) || !exists(wt[running]) {
		t.Fatalf("worktrees after prune: committed %v clean %v running %v", exists(wt[committed]), exists(wt[clean]), exists(wt[running]))
	}

	hosttest.OpenGate(t, slowDir)
	hosttest.Eventually(t, "the watch delivered", func() bool {
		return len(m.Threads().Watches(nil).Pending) == 0 && m.Markers().ThreadPending(model.ThreadID(clean)) == ""
	})
	hosttest.WaitStopped(t, m.c, clean)
	hosttest.CallRaw(t, m.c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: running})
	hosttest.WaitStopped(t, m.c, running)
	res = hosttest.Call[api.MarkersPruneResult](t, ops, api.MethodMarkersPrune, api.MarkersPruneParams{})
	for _, id := range []string{clean, running} {
		if it := pruneItem(t, res, id); !it.Cleanup.WorktreeRemoved || !it.Cleanup.BranchDeleted || exists(wt[id]) {
			t.Fatalf("ended thread %s: %+v", id, it)
		}
	}
	// The kept branch is listed every time; nothing else is left.
	if it := pruneItem(t, res, committed); it.Cleanup.Branch == "" || it.Cleanup.Worktree != "" || it.Cleanup.OwnCommits != 1 {
		t.Fatalf("kept branch not listed: %+v", it)
	}
	if got := branches(t, m.cwd); strings.Count(got, "marker-") != 1 || len(res.Threads) != 1+2 {
		t.Fatalf("branches left:\n%s\nthreads %+v", got, res.Threads)
	}
	if out := gitRun(t, m.cwd, "worktree", "list"); strings.Count(out, "\n") != 1 {
		t.Fatalf("worktrees left:\n%s", out)
	}
	// A pruned thread stays in its author's project.
	if r := m.nextReport(author, m.cwd, fence("task-read", `{"task_id":"`+clean+`"}`), 2); strings.Contains(r, "other_project") || !strings.Contains(r, "1. task-read: accepted") {
		t.Fatalf("poll after prune:\n%s", r)
	}
	// The agent's own token may not prune.
	hosttest.CallErr(t, th.RuntimeClient(), api.MethodMarkersPrune, api.MarkersPruneParams{}, model.CodePermissionDenied)
}

// Scenario: S002-03 — worktrees made before marker-creation records kept them (the record
// has no worktree; the run's outcome has) are found and pruned too.
func TestS002_03_PruneFindsWorktreesOfOlderRecords(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Operators: []string{"ops"}, Harnesses: markerHarnesses()})
	m := &markerEnv{Host: th, c: th.Client("bot"), cwd: gitRepo(t, t.TempDir(), true)}
	author := m.author(m.cwd, fence("task-create", `{"prompt":"old","harness":"shell"}`))
	m.report(author)
	child := m.createdThreads(author, 1)[0]
	wt := hosttest.WaitStopped(t, m.c, child).Thread.Cwd
	rec, err := m.Store().MarkerChild(model.ThreadID(child))
	if err != nil {
		t.Fatal(err)
	}
	rec.Repo, rec.Worktree, rec.Branch = "", "", ""
	if err := m.Store().PutMarkerChild(rec); err != nil {
		t.Fatal(err)
	}
	var runs []model.MarkerRun
	if err := m.Store().MarkerRuns(func(r model.MarkerRun) error { runs = append(runs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		for i := range r.Outcomes {
			if c := r.Outcomes[i].Created; c != nil {
				c.Repo = ""
			}
		}
		if err := m.Store().PutMarkerRun(r); err != nil {
			t.Fatal(err)
		}
	}
	res := hosttest.Call[api.MarkersPruneResult](t, th.Client("ops"), api.MethodMarkersPrune, api.MarkersPruneParams{})
	if it := pruneItem(t, res, child); !it.Cleanup.WorktreeRemoved || !it.Cleanup.BranchDeleted || exists(wt) {
		t.Fatalf("older record: %+v", it)
	}
	if again := hosttest.Call[api.MarkersPruneResult](t, th.Client("ops"), api.MethodMarkersPrune, api.MarkersPruneParams{}); len(again.Threads) != 0 {
		t.Fatalf("listed again: %+v", again.Threads)
	}
}
