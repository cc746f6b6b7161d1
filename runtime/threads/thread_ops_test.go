package threads_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S000-21
func TestS000_21_DeepLinkAndBareIDReadTheSame(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "linked", Refs: []string{refA}, Cwd: cwd})
	id := res.Thread.ID
	link := "codex://threads/" + id
	if res.Thread.Link != link {
		t.Fatalf("link %q, want %q", res.Thread.Link, link)
	}
	hosttest.WaitStopped(t, c, id)
	// The child is delegated by the link form of the parent.
	child := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: link}, Harness: "shell", Task: "sub", Cwd: cwd})
	if child.Thread.Origin == nil || child.Thread.Origin.ParentThread != id {
		t.Fatalf("delegation by link: origin %+v", child.Thread.Origin)
	}
	hosttest.WaitStopped(t, c, child.Thread.ID)

	for _, tc := range []struct {
		method string
		params func(thread string) any
	}{
		{api.MethodThreadRead, func(s string) any { return api.ThreadReadParams{Thread: s} }},
		{api.MethodThreadRead, func(s string) any { return api.ThreadReadParams{Thread: s, View: model.ViewMessages} }},
		{api.MethodThreadWait, func(s string) any {
			return api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: s}, TimeoutMs: api.WaitMs(1000)}
		}},
		{api.MethodThreadList, func(s string) any { return api.ThreadListParams{Parent: s} }},
	} {
		bare := hosttest.CallRaw(t, c, tc.method, tc.params(id))
		linked := hosttest.CallRaw(t, c, tc.method, tc.params(link))
		if !bytes.Equal(bare, linked) {
			t.Fatalf("%s by bare id and by link differ:\n%s\n%s", tc.method, bare, linked)
		}
		if !bytes.Contains(bare, []byte(id)) {
			t.Fatalf("%s result does not name the thread: %s", tc.method, bare)
		}
	}
	// Send and cancel accept the link as well.
	sent := hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: link, Message: "again"})
	if sent.Thread.ID != id || sent.TurnID == "" {
		t.Fatalf("send by link: %+v", sent)
	}
	hosttest.WaitStopped(t, c, id)
}

// Scenario: S000-22
func TestS000_22_ReadAndWaitThreadsOfOtherCallers(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"alpha", "beta"}})
	alpha, beta, rt := th.Client("alpha"), th.Client("beta"), th.RuntimeClient()
	cwd := t.TempDir()
	mine := hosttest.Delegate(t, alpha, api.DelegateStartParams{Harness: "shell", Task: "alpha's task", Cwd: cwd})
	byThread := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: mine.Thread.ID}, Harness: "shell", Task: "a thread's task", Cwd: cwd})

	for _, tc := range []struct {
		id, text string
	}{{mine.Thread.ID, "alpha's task"}, {byThread.Thread.ID, "a thread's task"}} {
		w := hosttest.WaitStopped(t, beta, tc.id)
		if w.Thread.ID != tc.id || w.Result == nil || w.Result.Text != tc.text {
			t.Fatalf("beta's wait on %s: %+v", tc.id, w.Result)
		}
		r := hosttest.Call[api.ThreadReadResult](t, beta, api.MethodThreadRead, api.ThreadReadParams{Thread: tc.id, View: model.ViewMessages})
		if len(r.Messages) != 2 || r.Messages[0].Text != tc.text || r.Messages[1].Role != model.RoleAssistant {
			t.Fatalf("beta's read of %s: %+v", tc.id, r.Messages)
		}
	}
	// A runtime caller reads a client's thread too.
	if r := hosttest.ReadThread(t, rt, mine.Thread.ID); r.Thread.Origin == nil || r.Thread.Origin.Client != "alpha" {
		t.Fatalf("runtime read of alpha's thread: %+v", r.Thread)
	}
}

// Scenario: S000-27
func TestS000_27_ReadAndWaitDoNotChangeAnExternalThread(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "observe me", Cwd: t.TempDir()})
	id := res.Thread.ID
	hosttest.WaitStopped(t, c, id)

	before := th.Transcript(id)
	read := api.ThreadReadParams{Thread: id, View: model.ViewMessages}
	r1 := hosttest.CallRaw(t, c, api.MethodThreadRead, read)
	// An idle thread returns at once, however long the timeout: an hour here, bounded by 10 s.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var w api.ThreadReadResult
	if err := c.Call(ctx, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: read, TimeoutMs: api.WaitMs(int(time.Hour / time.Millisecond))}, &w); err != nil {
		t.Fatalf("wait on an idle thread: %v", err)
	}
	if w.TimedOut == nil || *w.TimedOut || w.Thread.Status != model.ThreadIdle {
		t.Fatalf("wait on an idle thread: timedOut %v status %s", w.TimedOut, w.Thread.Status)
	}
	r2 := hosttest.CallRaw(t, c, api.MethodThreadRead, read)
	if !bytes.Equal(r1, r2) {
		t.Fatalf("the same read twice differs:\n%s\n%s", r1, r2)
	}
	if after := th.Transcript(id); !bytes.Equal(before, after) {
		t.Fatalf("read/wait changed the transcript:\n%s\n%s", before, after)
	}
	if n := turnsInTranscript(t, th, id); n != 1 {
		t.Fatalf("%d turns after reads and waits, want 1", n)
	}
}

// Scenario: S000-27
func TestS000_27_WaitOnARunningThreadTimesOutWithoutStoppingIt(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	dir := t.TempDir()
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "slow", Task: "long job", Cwd: dir})
	id := res.Thread.ID
	before := th.Transcript(id)

	w := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(150)})
	if w.TimedOut == nil || !*w.TimedOut || w.Thread.Status != model.ThreadActive || w.Thread.LastTurn == nil || w.Thread.LastTurn.Status != model.TurnInProgress {
		t.Fatalf("wait on a running thread: timedOut %v thread %+v", w.TimedOut, w.Thread)
	}
	r := hosttest.ReadThread(t, c, id)
	if r.Thread.Status != model.ThreadActive || r.Thread.LastTurn.ID != w.Thread.LastTurn.ID {
		t.Fatalf("the thread stopped after a wait: %+v", r.Thread)
	}
	if after := th.Transcript(id); !bytes.Equal(before, after) {
		t.Fatalf("wait wrote to the transcript:\n%s", after)
	}
	// The turn then finishes on its own: completed, not interrupted.
	hosttest.OpenGate(t, dir)
	done := hosttest.WaitStopped(t, c, id)
	if done.Result == nil || done.Result.Status != model.TurnCompleted || done.Result.Text != "long job" || done.Result.TurnID != w.Thread.LastTurn.ID {
		t.Fatalf("after the wait timed out the turn ended %+v", done.Result)
	}
}

func TestSendOnARunningThreadIsBusyAndNotQueued(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	dir := t.TempDir()
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "slow", Task: "first", Cwd: dir})
	id := res.Thread.ID
	me := hosttest.CallErr(t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: id, Message: "second"}, model.CodeThreadBusy)
	if !strings.Contains(me.Message, id) {
		t.Fatalf("busy error does not name the thread: %+v", me)
	}
	hosttest.OpenGate(t, dir)
	done := hosttest.WaitStopped(t, c, id)
	if done.Result == nil || done.Result.Text != "first" {
		t.Fatalf("result %+v", done.Result)
	}
	if n := turnsInTranscript(t, th, id); n != 1 {
		t.Fatalf("%d turns after a refused send, want 1", n)
	}
	r := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id, View: model.ViewMessages})
	for _, m := range r.Messages {
		if m.Text == "second" {
			t.Fatalf("the refused message reached the thread: %+v", r.Messages)
		}
	}
	// Idle again, the thread takes a message.
	sent := hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: id, Message: "third"})
	if sent.TurnID == "" || sent.TurnID == done.Result.TurnID {
		t.Fatalf("send on an idle thread: %+v", sent)
	}
	if done := hosttest.WaitStopped(t, c, id); done.Result.Text != "third" || turnsInTranscript(t, th, id) != 2 {
		t.Fatalf("second turn: %+v", done.Result)
	}
}

func TestCancelInterruptsTheRunningTurn(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	dir := t.TempDir()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Cwd: dir})
	res := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "slow", Task: "never finishes", Cwd: dir})
	id := res.Thread.ID
	turn := hosttest.ReadThread(t, c, id).Thread.LastTurn
	if turn == nil || turn.Status != model.TurnInProgress {
		t.Fatalf("not running: %+v", turn)
	}

	got := hosttest.Call[api.ThreadCancelResult](t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: id})
	if got.TurnID != turn.ID || got.Thread.Status != model.ThreadIdle || got.Thread.LastTurn == nil || got.Thread.LastTurn.Status != model.TurnInterrupted {
		t.Fatalf("cancel: %+v", got)
	}
	r := hosttest.ReadThread(t, c, id)
	if r.Result == nil || r.Result.Status != model.TurnInterrupted || r.Result.TurnID != turn.ID {
		t.Fatalf("result after cancel: %+v", r.Result)
	}
	hosttest.Eventually(t, "the delegation to record the interruption", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(id))
		return err == nil && d.Status == model.DelegationCancelled
	})
	hosttest.CallErr(t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: id}, model.CodeFailedPrecondition)
}

// A failing command is a failed turn, not a failed delegation.
func TestFailingHarnessCommandEndsTheTurnFailed(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Cwd: t.TempDir()})
	res := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "fail", Task: "will fail"})
	r := hosttest.WaitStopped(t, c, res.Thread.ID)
	if r.Result == nil || r.Result.Status != model.TurnFailed || !strings.Contains(r.Result.Error, "3") {
		t.Fatalf("result %+v", r.Result)
	}
	hosttest.Eventually(t, "the delegation to record the failure", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(res.Thread.ID))
		return err == nil && d.Status == model.DelegationFailed
	})
}

// A turn still running when the runtime stops ends interrupted, and after the restart the
// thread and its delegation say so.
func TestRestartDuringATurnLeavesItInterrupted(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	dir := t.TempDir()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Cwd: dir})
	res := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "slow", Task: "cut short", Cwd: dir})
	turn := hosttest.ReadThread(t, c, res.Thread.ID).Thread.LastTurn
	if turn == nil || turn.Status != model.TurnInProgress {
		t.Fatalf("not running: %+v", turn)
	}

	th.Restart()
	c = th.Client("bot")
	r := hosttest.ReadThread(t, c, res.Thread.ID)
	if r.Thread.Status != model.ThreadIdle || r.Result == nil || r.Result.TurnID != turn.ID || r.Result.Status != model.TurnInterrupted {
		t.Fatalf("after restart: %+v result %+v", r.Thread, r.Result)
	}
	d, err := th.Store().DelegationOfChild(model.ThreadID(res.Thread.ID))
	if err != nil || d.Status != model.DelegationCancelled {
		t.Fatalf("delegation after restart: %+v (%v)", d, err)
	}
	// The thread takes new work after the restart.
	hosttest.OpenGate(t, dir)
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: res.Thread.ID, Message: "resume"})
	if done := hosttest.WaitStopped(t, c, res.Thread.ID); done.Result == nil || done.Result.Status != model.TurnCompleted || done.Result.Text != "resume" {
		t.Fatalf("turn after restart: %+v", done.Result)
	}
}
