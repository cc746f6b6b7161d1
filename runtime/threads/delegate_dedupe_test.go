package threads_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S000-15
func TestS000_15_ReusedRequestIDReturnsTheOriginalChild(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot", "other"}})
	c := th.Client("bot")
	cwd := t.TempDir()
	p := api.DelegateStartParams{Harness: "shell", Task: "task one", RequestID: "req-1", Cwd: cwd}
	first := hosttest.Delegate(t, c, p)
	if first.Existing {
		t.Fatal("a first delegation reported as existing")
	}
	hosttest.WaitStopped(t, c, first.Thread.ID)
	again := hosttest.Delegate(t, c, p)
	if again.Thread.ID != first.Thread.ID || !again.Existing {
		t.Fatalf("retry gave %s (existing %v), want the original %s", again.Thread.ID, again.Existing, first.Thread.ID)
	}
	// A reuse with other parameters is refused, naming the original child, and starts nothing.
	p.Task = "task one, reworded by a retry"
	if me := hosttest.CallErr(t, c, api.MethodDelegateStart, p, model.CodeInvalidArgument); me.Details["thread"] != first.Thread.ID {
		t.Fatalf("a reworded reuse: %v, want the original %s named", me, first.Thread.ID)
	}
	if n := len(th.Transcripts()); n != 1 {
		t.Fatalf("%d threads in the harness, want 1", n)
	}
	if n := th.ThreadRecords(); n != 1 {
		t.Fatalf("%d thread records, want 1", n)
	}
	// The retry started no second turn on the child either.
	if msgs := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: first.Thread.ID, View: model.ViewMessages}).Messages; len(msgs) != 2 {
		t.Fatalf("child has %d messages, want one turn's 2", len(msgs))
	}

	// A request id belongs to its caller: another client's "req-1" is another request.
	other := hosttest.Delegate(t, th.Client("other"), api.DelegateStartParams{Harness: "shell", Task: "task one", RequestID: "req-1", Cwd: cwd})
	if other.Existing || other.Thread.ID == first.Thread.ID {
		t.Fatalf("another client's request id returned %s (existing %v)", other.Thread.ID, other.Existing)
	}

	// From a parent thread the delegation record is returned again too.
	rt := th.RuntimeClient()
	hint := api.CallerHint{ParentThread: first.Thread.ID}
	d1 := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: hint, Harness: "shell", Task: "sub", RequestID: "req-2", Cwd: cwd})
	d2 := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: hint, Harness: "shell", Task: "sub", RequestID: "req-2", Cwd: cwd})
	if d2.Thread.ID != d1.Thread.ID || d2.DelegationID != d1.DelegationID || d1.DelegationID == "" || !d2.Existing {
		t.Fatalf("retry from a thread: %+v vs %+v", d2, d1)
	}
	if kids, _ := th.Store().ChildrenOf(model.ThreadID(first.Thread.ID)); len(kids) != 1 {
		t.Fatalf("parent has %d children, want 1", len(kids))
	}
}

// One request id sent by many callers at once still makes exactly one child.
func TestConcurrentDelegationsWithOneRequestIDMakeOneChild(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	cwd := t.TempDir()
	p := api.DelegateStartParams{Harness: "shell", Task: "race", RequestID: "same-request", Cwd: cwd}
	conns := make([]*api.Client, 10)
	for i := range conns {
		conns[i] = th.Client("bot")
	}
	var (
		wg      sync.WaitGroup
		ids     lockedSet
		created lockedSet
		errs    = make(chan error, 100)
	)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(c *api.Client) {
			defer wg.Done()
			var res api.DelegateStartResult
			if err := c.Call(context.Background(), api.MethodDelegateStart, p, &res); err != nil {
				errs <- err
				return
			}
			ids.add(res.Thread.ID)
			if !res.Existing {
				created.add(res.Thread.ID)
			}
		}(conns[i%len(conns)])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(ids.m) != 1 || len(created.m) != 1 {
		t.Fatalf("children returned %v, created %v; want one", ids.m, created.m)
	}
	for _, n := range created.m {
		if n != 1 {
			t.Fatalf("the child was reported new %d times", n)
		}
	}
	if n := len(th.Transcripts()); n != 1 {
		t.Fatalf("%d transcripts, want 1", n)
	}
	if n := th.ThreadRecords(); n != 1 {
		t.Fatalf("%d thread records, want 1", n)
	}
	if ids, _ := th.Store().ThreadsOfClient("bot"); len(ids) != 1 {
		t.Fatalf("client origin index holds %d threads, want 1", len(ids))
	}
}

// Scenario: S000-16
func TestS000_16_SameTaskInsideTheWindowReturnsTheOriginalChild(t *testing.T) {
	t.Parallel()
	clock := hosttest.NewFakeClock(time.Now())
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot", "other"}, Now: clock.Now})
	c := th.Client("bot")
	cwd := t.TempDir()
	p := api.DelegateStartParams{Harness: "shell", Task: "same task", Cwd: cwd}
	first := hosttest.Delegate(t, c, p)
	again := hosttest.Delegate(t, c, p)
	clock.Advance(29 * time.Second)
	late := hosttest.Delegate(t, c, p)
	for _, r := range []api.DelegateStartResult{again, late} {
		if r.Thread.ID != first.Thread.ID || !r.Existing {
			t.Fatalf("repeat inside the window gave %s (existing %v), want %s", r.Thread.ID, r.Existing, first.Thread.ID)
		}
	}
	if n := len(th.Transcripts()); n != 1 {
		t.Fatalf("%d threads after repeats inside the window, want 1", n)
	}

	// Same text to another harness, or from another client, is another delegation.
	otherHarness := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "fail", Task: "same task", Cwd: cwd})
	otherClient := hosttest.Delegate(t, th.Client("other"), p)
	if otherHarness.Existing || otherClient.Existing || otherHarness.Thread.ID == first.Thread.ID || otherClient.Thread.ID == first.Thread.ID {
		t.Fatal("dedupe crossed harnesses or clients")
	}

	// Past the window (30 s by default) the same request is a new task.
	clock.Advance(2 * time.Second)
	fresh := hosttest.Delegate(t, c, p)
	if fresh.Existing || fresh.Thread.ID == first.Thread.ID {
		t.Fatalf("after the window got %s (existing %v), want a new child", fresh.Thread.ID, fresh.Existing)
	}
	// The window now runs from the new child.
	if r := hosttest.Delegate(t, c, p); r.Thread.ID != fresh.Thread.ID || !r.Existing {
		t.Fatalf("repeat of the new child gave %s", r.Thread.ID)
	}

	// The same holds for a parent thread as the origin.
	rt := th.RuntimeClient()
	sub := api.DelegateStartParams{Caller: api.CallerHint{ParentThread: first.Thread.ID}, Harness: "shell", Task: "sub task", Cwd: cwd}
	s1 := hosttest.Delegate(t, rt, sub)
	s2 := hosttest.Delegate(t, rt, sub)
	if s2.Thread.ID != s1.Thread.ID || s2.DelegationID != s1.DelegationID || !s2.Existing {
		t.Fatalf("repeat from a parent thread: %+v vs %+v", s2, s1)
	}
	sub.Caller.ParentThread = fresh.Thread.ID
	if s3 := hosttest.Delegate(t, rt, sub); s3.Existing || s3.Thread.ID == s1.Thread.ID {
		t.Fatal("the same task from another parent was deduplicated")
	}
	if n := len(th.Transcripts()); n != 6 {
		t.Fatalf("%d threads, want 6", n)
	}
}

// Scenario: S000-17
func TestS000_17_DifferentTasksMakeSeparateChildren(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "lead", Cwd: cwd})

	// Parallel work from one parent, started at once.
	const n = 6
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res api.DelegateStartResult
			err := rt.Call(context.Background(), api.MethodDelegateStart, api.DelegateStartParams{
				Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: fmt.Sprintf("part %d", i), Cwd: cwd}, &res)
			if err != nil {
				errs <- err
				return
			}
			if res.Existing {
				errs <- fmt.Errorf("part %d deduplicated into %s", i, res.Thread.ID)
			}
			ids[i] = res.Thread.ID
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	if len(seen) != n {
		t.Fatalf("%d distinct children for %d tasks: %v", len(seen), n, ids)
	}
	kids, err := th.Store().ChildrenOf(model.ThreadID(parent.Thread.ID))
	if err != nil || len(kids) != n {
		t.Fatalf("parent has %d recorded children (%v), want %d", len(kids), err, n)
	}
	// Each child got its own task.
	for i, id := range ids {
		if r := hosttest.WaitStopped(t, c, id); r.Result == nil || r.Result.Text != fmt.Sprintf("part %d", i) {
			t.Fatalf("child %d result %+v", i, r.Result)
		}
	}
}
