package marker_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/marker"
	"github.com/codexhost/codexhost/runtime/marker/markertest"
)

// The marker fixtures shared with the root package's tests (runtime/marker/markertest).
var (
	gitRepo      = markertest.GitRepo
	gitRun       = markertest.GitRun
	commitBlocks = markertest.CommitBlocks
	fence        = markertest.Fence
)

// markerHarnesses are the test homes' harnesses with the author harness.
func markerHarnesses() map[string]config.Harness { return markertest.Harnesses(hosttest.Harnesses()) }

type markerEnv struct {
	*hosttest.Host
	c   *api.Client
	cwd string
}

func newMarkerEnv(t *testing.T, edit func(*config.Config)) *markerEnv {
	t.Helper()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Harnesses: markerHarnesses()})
	if edit != nil {
		edit(th.Cfg)
		if err := config.Save(th.Home, th.Cfg); err != nil {
			t.Fatal(err)
		}
		th.Restart()
	}
	return &markerEnv{Host: th, c: th.Client("bot"), cwd: gitRepo(t, t.TempDir(), true)}
}

// author starts the author thread in dir, whose first turn prints blocks.
func (m *markerEnv) author(dir, blocks string) string {
	m.T.Helper()
	if err := os.WriteFile(filepath.Join(dir, "blocks.md"), []byte(blocks), 0o600); err != nil {
		m.T.Fatal(err)
	}
	// A task of its own each time: the same task within the dedupe window is the same thread.
	task := fmt.Sprintf("work %d", time.Now().UnixNano())
	return hosttest.Delegate(m.T, m.c, api.DelegateStartParams{Harness: "author", Task: task, Cwd: dir}).Thread.ID
}

func (m *markerEnv) start(harness, task, dir string) string {
	m.T.Helper()
	return hosttest.Delegate(m.T, m.c, api.DelegateStartParams{Harness: harness, Task: task, Cwd: dir}).Thread.ID
}

// reports returns the marker reports the author received, oldest first.
func (m *markerEnv) reports(author string) []string {
	m.T.Helper()
	res := hosttest.Call[api.ThreadReadResult](m.T, m.c, api.MethodThreadRead, api.ThreadReadParams{Thread: author, View: model.ViewMessages, Limit: 100})
	var out []string
	for _, msg := range res.Messages {
		if msg.Role == model.RoleUser && strings.Contains(msg.Text, "codexhost marker report") {
			out = append(out, msg.Text)
		}
	}
	return out
}

func (m *markerEnv) report(author string) string {
	m.T.Helper()
	var got []string
	hosttest.Eventually(m.T, "the marker report", func() bool { got = m.reports(author); return len(got) > 0 })
	return got[0]
}

func (m *markerEnv) markers(author string) api.ThreadMarkersResult {
	m.T.Helper()
	return hosttest.Call[api.ThreadMarkersResult](m.T, m.c, api.MethodThreadMarkers, api.ThreadMarkersParams{Thread: author})
}

// Scenario: S002-03 — a created thread runs in its own worktree, recorded under its author
// (origin parent, createdBy generation 1); the author's tree and its uncommitted changes are
// untouched.
func TestS002_03_CreatedThreadRunsInItsOwnWorktree(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	repo := m.cwd
	if err := os.WriteFile(filepath.Join(repo, "dirty.txt"), []byte("uncommitted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitRun(t, repo, "config", "status.showUntrackedFiles", "all")
	// blocks.md itself is uncommitted author state too.
	author := m.author(repo, fence("task-create", `{"name":"echo-child","prompt":"hello from the author","harness":"shell"}`))
	before := gitRun(t, repo, "status", "--porcelain")
	report := m.report(author)
	if !strings.Contains(report, `1. task-create "echo-child": accepted`) || !strings.Contains(report, "own worktree") {
		t.Fatalf("report:\n%s", report)
	}
	audit := m.markers(author).Audit
	if len(audit) != 1 || audit[0].Created == "" || audit[0].Decision != "accepted" {
		t.Fatalf("audit %+v", audit)
	}
	child := string(audit[0].Created)
	if !strings.Contains(report, "codex://threads/"+child) {
		t.Fatalf("report without the child's link:\n%s", report)
	}
	res := hosttest.WaitStopped(t, m.c, child)
	if res.Result == nil || !strings.Contains(res.Result.Text, "hello from the author") {
		t.Fatalf("child result %+v", res.Result)
	}
	if o := res.Thread.Origin; o == nil || o.ParentThread != author {
		t.Fatalf("child origin %+v", o)
	}
	wt := res.Thread.Cwd
	if !strings.HasPrefix(wt, filepath.Join(m.Home, "worktrees")) {
		t.Fatalf("child cwd %s is not its own worktree", wt)
	}
	if _, err := os.Stat(filepath.Join(wt, "dirty.txt")); !os.IsNotExist(err) {
		t.Fatalf("uncommitted change carried into the worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, "README")); err != nil {
		t.Fatalf("worktree lacks HEAD's files: %v", err)
	}
	if after := gitRun(t, repo, "status", "--porcelain"); after != before {
		t.Fatalf("author's tree changed:\n%s\nwas\n%s", after, before)
	}
	if c := m.markers(child).Created; c == nil || c.Parent != model.ThreadID(author) || c.Generation != 1 {
		t.Fatalf("createdBy %+v", c)
	}
}

// Scenario: S002-03 — outside git the created thread shares the cwd and the report says so.
func TestS002_03_CreatedThreadOutsideGitSharesTheCwd(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	author := m.author(t.TempDir(), fence("task-create", `{"prompt":"p","harness":"shell"}`)+fence("task-create", `{"prompt":"q","executor":"docker"}`))
	report := m.report(author)
	if !strings.Contains(report, "sharing your cwd") || !strings.Contains(report, "2. task-create: rejected (create_refused): the executor docker is not mapped") {
		t.Fatalf("report:\n%s", report)
	}
}

// Scenario: S002-03 — a block naming a harness that is not registered is refused with the
// names it may use, so the agent can write the block again without asking anyone.
func TestS002_03_UnknownHarnessRefusalNamesTheHarnesses(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	author := m.author(t.TempDir(), fence("task-create", `{"prompt":"p","harness":"nope"}`))
	report := m.report(author)
	if !strings.Contains(report, `1. task-create: rejected (create_refused): harness "nope" is not registered`) || !strings.Contains(report, "use one of: ") || !strings.Contains(report, "shell") {
		t.Fatalf("report:\n%s", report)
	}
}

// Scenario: S002-04 (S002-05, S002-07) — a poll and a wait are reported together once the
// waited thread stops; missing and self targets are settled at once.
func TestS002_05_PollAndWaitReportSnapshots(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	done := m.start("shell", "finished work", m.cwd)
	hosttest.WaitStopped(t, m.c, done)
	slowDir := m.cwd
	slow := m.start("slow", "slow work", slowDir)
	missing := "019a0000-0000-7000-8000-0000000000ff"
	blocks := fence("task-read", `{"task_id":"`+done+`","chars":200}`) +
		fence("wait-threads", `{"task_ids":["`+slow+`","`+missing+`","`+slow+`"],"interval_seconds":1,"timeout_seconds":600}`)
	author := m.author(m.cwd, blocks)
	hosttest.Eventually(t, "the wait running", func() bool { return len(m.markers(author).Running) == 1 })
	if len(m.reports(author)) != 0 {
		t.Fatalf("report before the wait ended")
	}
	hosttest.OpenGate(t, slowDir)
	report := m.report(author)
	for _, want := range []string{
		"1. task-read: accepted", "codex://threads/" + done + ": status completed", "| finished work",
		"2. wait-threads: accepted", "codex://threads/" + slow + ": status completed, last turn", "completed",
		"codex://threads/" + missing + ": not read (not_found)",
	} {
		if !strings.Contains(report, want) {
			t.Fatalf("report lacks %q:\n%s", want, report)
		}
	}
	if strings.Count(report, slow) != 1 {
		t.Fatalf("duplicate target not removed:\n%s", report)
	}
}

// Scenario: S002-06 — task-cancel really stops a running process; the thread ends interrupted.
func TestS002_06_CancelStopsARunningSleep(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	target := m.start("sleep", "sleep", m.cwd)
	author := m.author(m.cwd, fence("task_cancel", `{"to":"`+target+`"}`)+fence("task-cancel", `{"task_id":"`+target+`"}`))
	report := m.report(author)
	if !strings.Contains(report, "1. task_cancel: accepted") || !strings.Contains(report, "cancelled turn") {
		t.Fatalf("report:\n%s", report)
	}
	// The second block ran after the first stopped it: the state gate refuses it.
	if !strings.Contains(report, "2. task-cancel: rejected (not_running)") {
		t.Fatalf("report:\n%s", report)
	}
	res := hosttest.WaitStopped(t, m.c, target)
	if res.Thread.LastTurn == nil || res.Thread.LastTurn.Status != model.TurnInterrupted {
		t.Fatalf("target after cancel: %+v", res.Thread.LastTurn)
	}
}

// Scenario: S002-06 (S002-08) — retry needs the grant; with it, a failed thread runs a new
// turn with its last message.
func TestS002_06_RetryRerunsAFailedThread(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	target := m.start("fail", "try this", m.cwd)
	first := hosttest.WaitStopped(t, m.c, target).Thread.LastTurn
	author := m.author(m.cwd, fence("task-retry", `{"task_id":"`+target+`"}`))
	if r := m.report(author); !strings.Contains(r, "1. task-retry: rejected (permission_denied)") {
		t.Fatalf("retry without the grant:\n%s", r)
	}
	if got := hosttest.ReadThread(t, m.c, target).Thread.LastTurn; got.ID != first.ID {
		t.Fatalf("a refused retry changed the target: %+v", got)
	}

	m.Cfg.Markers.RetryClients = []string{"bot"}
	if err := config.Save(m.Home, m.Cfg); err != nil {
		t.Fatal(err)
	}
	m.Restart()
	m.c = m.Client("bot")
	author2 := m.author(m.cwd, fence("task_retry", `{"thread_id":"`+target+`"}`))
	r := m.report(author2)
	if !strings.Contains(r, "1. task_retry: accepted") || !strings.Contains(r, "retried codex://threads/"+target) {
		t.Fatalf("retry with the grant:\n%s", r)
	}
	again := hosttest.WaitStopped(t, m.c, target)
	if again.Thread.LastTurn.ID == first.ID || again.Thread.LastTurn.Status != model.TurnFailed {
		t.Fatalf("no new turn: %+v", again.Thread.LastTurn)
	}
	msgs := hosttest.Call[api.ThreadReadResult](t, m.c, api.MethodThreadRead, api.ThreadReadParams{Thread: target, View: model.ViewMessages})
	users := 0
	for _, msg := range msgs.Messages {
		if msg.Role == model.RoleUser && msg.Text == "try this" {
			users++
		}
	}
	if users != 2 {
		t.Fatalf("the retry did not resend the last message: %+v", msgs.Messages)
	}
}

// Scenario: S002-01 — a failed turn's blocks are not executed.
func TestS002_01_FailedTurnRunsNoBlocks(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	if err := os.WriteFile(filepath.Join(m.cwd, "exitcode"), []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	author := m.author(m.cwd, fence("task-create", `{"prompt":"must not run","harness":"shell"}`))
	if st := hosttest.WaitStopped(t, m.c, author).Thread.LastTurn.Status; st != model.TurnFailed {
		t.Fatalf("author turn %s", st)
	}
	// A later completed turn proves the runtime has handled the failed one: its blocks ran
	// and were reported, the failed turn's never were.
	if err := os.Remove(filepath.Join(m.cwd, "exitcode")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.cwd, "blocks.md"), []byte(fence("task-read", `{"task_id":"`+author+`"}`)), 0o600); err != nil {
		t.Fatal(err)
	}
	hosttest.Call[api.ThreadSendResult](t, m.c, api.MethodThreadSend, api.ThreadSendParams{Thread: author, Message: "again"})
	r := m.report(author)
	if !strings.Contains(r, "not read (self)") {
		t.Fatalf("report:\n%s", r)
	}
	audit := m.markers(author).Audit
	if len(audit) != 1 || audit[0].Tool != "task-poll" {
		t.Fatalf("audit %+v", audit)
	}
}

// Scenario: S002-01 — an author cancelled during its wait gets no report.
func TestS002_01_AuthorCancelledDuringAWaitGetsNoReport(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	slowDir := m.cwd
	slow := m.start("slow", "slow", slowDir)
	author := m.author(m.cwd, fence("wait-threads", `{"task_ids":["`+slow+`"],"timeout_seconds":600}`))
	hosttest.Eventually(t, "the wait running", func() bool { return len(m.markers(author).Running) == 1 })
	hosttest.CallErr(t, m.c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: author}, model.CodeFailedPrecondition)
	hosttest.Eventually(t, "the run abandoned", func() bool { return len(m.markers(author).Running) == 0 })
	hosttest.OpenGate(t, slowDir)
	hosttest.WaitStopped(t, m.c, slow)
	if w := m.Threads().Watches(nil); len(w.Pending) != 0 {
		t.Fatalf("a report is pending: %+v", w.Pending)
	}
	if r := m.reports(author); len(r) != 0 {
		t.Fatalf("reports %q", r)
	}
}

// Scenario: S002-05 — a restart during a wait resumes it and reports exactly once.
func TestS002_05_RestartDuringAWaitResumesAndReportsOnce(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	slowDir := m.cwd
	slow := m.start("slow", "slow", slowDir)
	author := m.author(m.cwd, fence("wait-threads", `{"task_ids":["`+slow+`"],"timeout_seconds":3600}`))
	hosttest.Eventually(t, "the wait running", func() bool { return len(m.markers(author).Running) == 1 })
	m.Restart() // the slow turn ends interrupted with the runtime; the wait resumes and sees it
	m.c = m.Client("bot")
	r := m.report(author)
	if !strings.Contains(r, "codex://threads/"+slow+": status") || !strings.Contains(r, "interrupted") {
		t.Fatalf("report:\n%s", r)
	}
	m.Restart()
	m.c = m.Client("bot")
	hosttest.WaitStopped(t, m.c, author)
	if got := m.reports(author); len(got) != 1 {
		t.Fatalf("%d reports", len(got))
	}
}

// Scenario: S002-09 — over the principal's quota the whole creation round is skipped.
func TestS002_09_QuotaSkipsTheCreationRound(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, func(c *config.Config) { c.Markers.MaxActiveThreads = 1 })
	busy := m.start("sleep", "busy", m.cwd)
	author := m.author(m.cwd, fence("task-create", `{"prompt":"a","harness":"shell"}`)+fence("task-create", `{"prompt":"b","harness":"shell"}`))
	r := m.report(author)
	if strings.Count(r, ": skipped (quota)") != 2 {
		t.Fatalf("report:\n%s", r)
	}
	hosttest.CallRaw(t, m.c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: busy})
}

// Scenario: S002-09 — the generation and direct-children guards skip creation blocks.
func TestS002_09_GenerationAndDirectChildLimits(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	deep := m.start("author", "third generation", m.cwd)
	hosttest.WaitStopped(t, m.c, deep)
	chain := []model.ThreadID{model.ThreadID(deep), "019a0000-0000-7000-8000-0000000000a1", "019a0000-0000-7000-8000-0000000000a2", "019a0000-0000-7000-8000-0000000000a3"}
	for i := 0; i < 3; i++ {
		if err := m.Store().PutMarkerChild(model.MarkerChild{Child: chain[i], Parent: chain[i+1], Generation: 3 - i}); err != nil {
			t.Fatal(err)
		}
	}
	wide := m.start("author", "twenty children", t.TempDir())
	hosttest.WaitStopped(t, m.c, wide)
	for i := 0; i < 20; i++ {
		child := model.ThreadID(strings.Replace("019a0000-0000-7000-8000-0000000001xx", "xx", string(rune('a'+i/10))+string(rune('0'+i%10)), 1))
		if err := m.Store().PutMarkerChild(model.MarkerChild{Child: child, Parent: model.ThreadID(wide), Generation: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ id, dir, want string }{{deep, m.cwd, "skipped (generation_limit)"}, {wide, "", "skipped (children_limit)"}} {
		res := hosttest.ReadThread(t, m.c, tc.id)
		if err := os.WriteFile(filepath.Join(res.Thread.Cwd, "blocks.md"), []byte(fence("task-create", `{"prompt":"x","harness":"shell"}`)), 0o600); err != nil {
			t.Fatal(err)
		}
		hosttest.Call[api.ThreadSendResult](t, m.c, api.MethodThreadSend, api.ThreadSendParams{Thread: tc.id, Message: "create"})
		if r := m.report(tc.id); !strings.Contains(r, tc.want) {
			t.Fatalf("%s: report:\n%s", tc.want, r)
		}
	}
	_ = time.Second
}

// Scenario: S002-10 — each report starts the author's next turn, so an author that writes the
// same refused blocks every turn would loop for ever: after MaxRefusedReports reports in a row
// with nothing accepted, the next one is held and the author stays idle.
func TestS002_10_RepeatedRefusedBlocksDoNotLoop(t *testing.T) {
	t.Parallel()
	hs := markerHarnesses()
	hs["looper"] = config.Harness{Command: []string{"sh", "-c", "cat >/dev/null; printf '```task-create\\n{\"prompt\":\"\"}\\n```\\n'"}}
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Harnesses: hs})
	m := &markerEnv{Host: th, c: th.Client("bot"), cwd: gitRepo(t, t.TempDir(), true)}
	author := m.start("looper", "loop", m.cwd)
	held := func() bool {
		found := false
		_ = m.Store().MarkerRuns(func(r model.MarkerRun) error {
			found = found || (r.Author == model.ThreadID(author) && r.State == model.MarkerHeld)
			return nil
		})
		return found
	}
	hosttest.Eventually(t, "a held report", held)
	hosttest.WaitStopped(t, m.c, author)
	reports := m.reports(author)
	if len(reports) != marker.MaxRefusedReports || !strings.Contains(reports[len(reports)-1], "further reports of blocks that do not run are held") {
		t.Fatalf("%d reports, want %d, the last saying why no more come: %q", len(reports), marker.MaxRefusedReports, reports)
	}
	if turns := hosttest.ReadThread(t, m.c, author); turns.Thread.Status != model.ThreadIdle {
		t.Fatalf("the author runs on: %+v", turns.Thread)
	}
}

// Scenario: S002-02 — a goal thread (a task with acceptance criteria or test commands) does
// not parse blocks: its completed turn's task-create runs nothing and no report comes, while
// an ordinary author's same block runs. codexhost has no coordinator threads.
func TestS002_02_GoalThreadsRunNoBlocks(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	goalDir, plainDir := gitRepo(t, t.TempDir(), true), gitRepo(t, t.TempDir(), false)
	block := fence("task-create", `{"prompt":"must not run","harness":"shell"}`)
	goal := m.author(goalDir, "")
	hosttest.WaitStopped(t, m.c, goal)
	rec, err := m.Store().Thread(model.ThreadID(goal))
	if err != nil {
		t.Fatal(err)
	}
	rec.Goal = true
	if err := m.Store().PutThread(rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(goalDir, "blocks.md"), []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	hosttest.Call[api.ThreadSendResult](t, m.c, api.MethodThreadSend, api.ThreadSendParams{Thread: goal, Message: "go"})
	hosttest.WaitStopped(t, m.c, goal)
	// The same block from an ordinary author runs and is reported: the goal one had its chance.
	plain := m.author(plainDir, block)
	if r := m.report(plain); !strings.Contains(r, "accepted") {
		t.Fatalf("ordinary author's report:\n%s", r)
	}
	if got := m.reports(goal); len(got) != 0 {
		t.Fatalf("a goal thread got a report: %q", got)
	}
	if audit := m.markers(goal).Audit; len(audit) != 0 {
		t.Fatalf("a goal thread's blocks were audited: %+v", audit)
	}
}
