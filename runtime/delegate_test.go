package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/store"
)

const (
	refA = "https://github.com/o/r/issues/12"
	refB = "https://github.com/o/r/issues/34"
	refC = "https://example.com/spec#section-2"
)

func findThread(threads []model.ThreadInfo, id string) (model.ThreadInfo, bool) {
	for _, th := range threads {
		if th.ID == id {
			return th, true
		}
	}
	return model.ThreadInfo{}, false
}

// Scenario: S000-01
func TestS000_01_RefOnStartShowsInResponseReadAndList(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c := th.client("bot")
	res := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "fix the issue", Refs: []string{refA}, Cwd: t.TempDir()})
	want := []string{refA}
	if !slices.Equal(res.Thread.Refs, want) {
		t.Fatalf("delegate response refs %q, want %q", res.Thread.Refs, want)
	}
	if got := readThread(t, c, res.Thread.ID).Thread.Refs; !slices.Equal(got, want) {
		t.Fatalf("thread.read refs %q, want %q", got, want)
	}
	list := call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{})
	row, ok := findThread(list.Threads, res.Thread.ID)
	if !ok || !slices.Equal(row.Refs, want) {
		t.Fatalf("thread.list row %+v (found %v), want refs %q", row, ok, want)
	}
	byRef := call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Ref: refA})
	if ids := threadIDs(byRef.Threads); !slices.Equal(ids, []string{res.Thread.ID}) || !slices.Equal(byRef.Threads[0].Refs, want) {
		t.Fatalf("thread.list --ref: %+v", byRef.Threads)
	}
}

// Scenario: S000-02
func TestS000_02_ChildInheritsParentRefsThenItsOwn(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c, rt := th.client("bot"), th.runtimeClient()
	cwd := t.TempDir()
	parent := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Refs: []string{refA}, Cwd: cwd})

	// The parent names itself with --parent-thread.
	child := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: "child", Refs: []string{refB}, Cwd: cwd})
	if want := []string{refA, refB}; !slices.Equal(child.Thread.Refs, want) {
		t.Fatalf("child refs %q, want %q", child.Thread.Refs, want)
	}
	if o := child.Thread.Origin; o == nil || o.Kind != model.OriginThread || o.ParentThread != parent.Thread.ID || o.DelegationID != child.DelegationID || child.DelegationID == "" {
		t.Fatalf("child origin %+v, delegation %q", o, child.DelegationID)
	}
	if got := readThread(t, c, child.Thread.ID).Thread.Refs; !slices.Equal(got, []string{refA, refB}) {
		t.Fatalf("thread.read of the child: refs %q", got)
	}

	// The parent is known from CODEXHOST_THREAD_ID; a repeated ref is not added twice and the
	// inherited one keeps its place.
	child2 := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: parent.Thread.ID}, Harness: "shell", Task: "child two", Refs: []string{refB, refA}, Cwd: cwd})
	if want := []string{refA, refB}; !slices.Equal(child2.Thread.Refs, want) || child2.Thread.Origin.ParentThread != parent.Thread.ID {
		t.Fatalf("second child refs %q origin %+v", child2.Thread.Refs, child2.Thread.Origin)
	}

	// Inheritance goes on down the chain.
	grand := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: child.Thread.ID}, Harness: "shell", Task: "grandchild", Refs: []string{refC}, Cwd: cwd})
	if want := []string{refA, refB, refC}; !slices.Equal(grand.Thread.Refs, want) {
		t.Fatalf("grandchild refs %q, want %q", grand.Thread.Refs, want)
	}
	// The parent's own refs are untouched by its children's.
	if got := readThread(t, c, parent.Thread.ID).Thread.Refs; !slices.Equal(got, []string{refA}) {
		t.Fatalf("parent refs changed to %q", got)
	}
}

// Scenario: S000-03
func TestS000_03_CredentialsInRefsAreNeverStored(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c := th.client("bot")
	given := []string{
		"https://alice:s3cr3tpw@github.com/o/r/issues/1",
		"https://example.com/doc?access_token=tok-9f8e7d&page=2",
		"https://example.com/api?api_key=k3y-abc#frag",
	}
	want := []string{
		"https://github.com/o/r/issues/1",
		"https://example.com/doc?page=2",
		"https://example.com/api#frag",
	}
	secrets := []string{"alice", "s3cr3tpw", "tok-9f8e7d", "k3y-abc", "access_token", "api_key"}
	res := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "credentials task", Refs: given, Cwd: t.TempDir()})
	if !slices.Equal(res.Thread.Refs, want) {
		t.Fatalf("response refs %q, want %q", res.Thread.Refs, want)
	}
	if got := readThread(t, c, res.Thread.ID).Thread.Refs; !slices.Equal(got, want) {
		t.Fatalf("thread.read refs %q, want %q", got, want)
	}
	// A ref given with its credentials finds the thread by its stripped form.
	byRef := call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Ref: given[1]})
	if ids := threadIDs(byRef.Threads); !slices.Equal(ids, []string{res.Thread.ID}) {
		t.Fatalf("thread.list --ref with credentials: %v", ids)
	}
	for _, s := range secrets {
		raw := string(callRaw(t, c, api.MethodThreadList, api.ThreadListParams{}))
		if strings.Contains(raw, s) {
			t.Fatalf("thread.list result contains %q: %s", s, raw)
		}
	}

	waitStopped(t, c, res.Thread.ID)
	th.close()
	for k, v := range dumpStore(t, th.home) {
		for _, s := range secrets {
			if strings.Contains(k, s) || strings.Contains(v, s) {
				t.Fatalf("store record %q holds %q: %s", k, s, v)
			}
		}
	}
}

// Scenario: S000-13
func TestS000_13_UnknownHarnessListsTheValidOnes(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c := th.client("bot")
	me := callErr(t, c, api.MethodDelegateStart, api.DelegateStartParams{Harness: "claude", Task: "hello"}, model.CodeHarnessNotFound)
	valid := []string{"codex", "env", "fail", "shell", "slow"}
	var got []string
	list, _ := me.Details["harnesses"].([]any)
	for _, v := range list {
		s, _ := v.(string)
		got = append(got, s)
	}
	if !slices.Equal(got, valid) {
		t.Fatalf("details.harnesses = %v, want %v", me.Details["harnesses"], valid)
	}
	for _, name := range valid {
		if !strings.Contains(me.Message, name) || !strings.Contains(me.Hint, name) {
			t.Fatalf("message %q / hint %q does not name %s", me.Message, me.Hint, name)
		}
	}
	if n := len(th.transcripts()); n != 0 {
		t.Fatalf("%d transcripts after a refused delegation", n)
	}
}

// Scenario: S000-15
func TestS000_15_ReusedRequestIDReturnsTheOriginalChild(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot", "other"}})
	c := th.client("bot")
	cwd := t.TempDir()
	p := api.DelegateStartParams{Harness: "shell", Task: "task one", RequestID: "req-1", Cwd: cwd}
	first := delegate(t, c, p)
	if first.Existing {
		t.Fatal("a first delegation reported as existing")
	}
	waitStopped(t, c, first.Thread.ID)
	again := delegate(t, c, p)
	if again.Thread.ID != first.Thread.ID || !again.Existing {
		t.Fatalf("retry gave %s (existing %v), want the original %s", again.Thread.ID, again.Existing, first.Thread.ID)
	}
	// A reuse with other parameters is refused, naming the original child, and starts nothing.
	p.Task = "task one, reworded by a retry"
	if me := callErr(t, c, api.MethodDelegateStart, p, model.CodeInvalidArgument); me.Details["thread"] != first.Thread.ID {
		t.Fatalf("a reworded reuse: %v, want the original %s named", me, first.Thread.ID)
	}
	if n := len(th.transcripts()); n != 1 {
		t.Fatalf("%d threads in the harness, want 1", n)
	}
	if n := th.threadRecords(); n != 1 {
		t.Fatalf("%d thread records, want 1", n)
	}
	// The retry started no second turn on the child either.
	if msgs := call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: first.Thread.ID, View: model.ViewMessages}).Messages; len(msgs) != 2 {
		t.Fatalf("child has %d messages, want one turn's 2", len(msgs))
	}

	// A request id belongs to its caller: another client's "req-1" is another request.
	other := delegate(t, th.client("other"), api.DelegateStartParams{Harness: "shell", Task: "task one", RequestID: "req-1", Cwd: cwd})
	if other.Existing || other.Thread.ID == first.Thread.ID {
		t.Fatalf("another client's request id returned %s (existing %v)", other.Thread.ID, other.Existing)
	}

	// From a parent thread the delegation record is returned again too.
	rt := th.runtimeClient()
	hint := api.CallerHint{ParentThread: first.Thread.ID}
	d1 := delegate(t, rt, api.DelegateStartParams{Caller: hint, Harness: "shell", Task: "sub", RequestID: "req-2", Cwd: cwd})
	d2 := delegate(t, rt, api.DelegateStartParams{Caller: hint, Harness: "shell", Task: "sub", RequestID: "req-2", Cwd: cwd})
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
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	cwd := t.TempDir()
	p := api.DelegateStartParams{Harness: "shell", Task: "race", RequestID: "same-request", Cwd: cwd}
	conns := make([]*api.Client, 10)
	for i := range conns {
		conns[i] = th.client("bot")
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
	if n := len(th.transcripts()); n != 1 {
		t.Fatalf("%d transcripts, want 1", n)
	}
	if n := th.threadRecords(); n != 1 {
		t.Fatalf("%d thread records, want 1", n)
	}
	if ids, _ := th.Store().ThreadsOfClient("bot"); len(ids) != 1 {
		t.Fatalf("client origin index holds %d threads, want 1", len(ids))
	}
}

// Scenario: S000-16
func TestS000_16_SameTaskInsideTheWindowReturnsTheOriginalChild(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(time.Now())
	th := newTestHost(t, hostOptions{clients: []string{"bot", "other"}, now: clock.Now})
	c := th.client("bot")
	cwd := t.TempDir()
	p := api.DelegateStartParams{Harness: "shell", Task: "same task", Cwd: cwd}
	first := delegate(t, c, p)
	again := delegate(t, c, p)
	clock.Advance(29 * time.Second)
	late := delegate(t, c, p)
	for _, r := range []api.DelegateStartResult{again, late} {
		if r.Thread.ID != first.Thread.ID || !r.Existing {
			t.Fatalf("repeat inside the window gave %s (existing %v), want %s", r.Thread.ID, r.Existing, first.Thread.ID)
		}
	}
	if n := len(th.transcripts()); n != 1 {
		t.Fatalf("%d threads after repeats inside the window, want 1", n)
	}

	// Same text to another harness, or from another client, is another delegation.
	otherHarness := delegate(t, c, api.DelegateStartParams{Harness: "fail", Task: "same task", Cwd: cwd})
	otherClient := delegate(t, th.client("other"), p)
	if otherHarness.Existing || otherClient.Existing || otherHarness.Thread.ID == first.Thread.ID || otherClient.Thread.ID == first.Thread.ID {
		t.Fatal("dedupe crossed harnesses or clients")
	}

	// Past the window (30 s by default) the same request is a new task.
	clock.Advance(2 * time.Second)
	fresh := delegate(t, c, p)
	if fresh.Existing || fresh.Thread.ID == first.Thread.ID {
		t.Fatalf("after the window got %s (existing %v), want a new child", fresh.Thread.ID, fresh.Existing)
	}
	// The window now runs from the new child.
	if r := delegate(t, c, p); r.Thread.ID != fresh.Thread.ID || !r.Existing {
		t.Fatalf("repeat of the new child gave %s", r.Thread.ID)
	}

	// The same holds for a parent thread as the origin.
	rt := th.runtimeClient()
	sub := api.DelegateStartParams{Caller: api.CallerHint{ParentThread: first.Thread.ID}, Harness: "shell", Task: "sub task", Cwd: cwd}
	s1 := delegate(t, rt, sub)
	s2 := delegate(t, rt, sub)
	if s2.Thread.ID != s1.Thread.ID || s2.DelegationID != s1.DelegationID || !s2.Existing {
		t.Fatalf("repeat from a parent thread: %+v vs %+v", s2, s1)
	}
	sub.Caller.ParentThread = fresh.Thread.ID
	if s3 := delegate(t, rt, sub); s3.Existing || s3.Thread.ID == s1.Thread.ID {
		t.Fatal("the same task from another parent was deduplicated")
	}
	if n := len(th.transcripts()); n != 6 {
		t.Fatalf("%d threads, want 6", n)
	}
}

// Scenario: S000-17
func TestS000_17_DifferentTasksMakeSeparateChildren(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c, rt := th.client("bot"), th.runtimeClient()
	cwd := t.TempDir()
	parent := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "lead", Cwd: cwd})

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
		if r := waitStopped(t, c, id); r.Result == nil || r.Result.Text != fmt.Sprintf("part %d", i) {
			t.Fatalf("child %d result %+v", i, r.Result)
		}
	}
}

// Scenario: S000-18
func TestS000_18_ChildDelegatingAddsARelationAndKeepsTheOld(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c, rt := th.client("bot"), th.runtimeClient()
	cwd := t.TempDir()
	parent := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "root", Cwd: cwd})
	child := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: "child", Cwd: cwd})
	waitStopped(t, c, child.Thread.ID)

	rawDelegation := func(id string) string {
		t.Helper()
		var raw []byte
		err := th.Store().View(func(tx *store.Tx) error {
			var err error
			raw, err = tx.GetRaw(store.PrefixDelegation, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	eventually(t, "the child's delegation to complete", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted
	})
	before := rawDelegation(child.DelegationID)

	// The child delegates, and its child does too: depth never refuses a delegation.
	grand := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: child.Thread.ID}, Harness: "shell", Task: "grandchild", Cwd: cwd})
	if grand.DelegationID == "" || grand.DelegationID == child.DelegationID || grand.Existing {
		t.Fatalf("grandchild delegation %q (child's %q)", grand.DelegationID, child.DelegationID)
	}
	chain := grand
	for i := range 5 {
		chain = delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: chain.Thread.ID}, Harness: "shell", Task: fmt.Sprintf("level %d", i+3), Cwd: cwd})
	}
	for _, id := range []string{grand.Thread.ID, chain.Thread.ID} {
		waitStopped(t, c, id)
	}
	eventually(t, "the grandchild's delegation to complete", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(grand.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted
	})

	d, err := th.Store().DelegationOfChild(model.ThreadID(grand.Thread.ID))
	if err != nil || d.ID != grand.DelegationID || d.ParentThread != model.ThreadID(child.Thread.ID) || d.ChildThread != model.ThreadID(grand.Thread.ID) || d.ParentHarness != "shell" || d.TargetHarness != "shell" {
		t.Fatalf("new delegation %+v (%v)", d, err)
	}
	if after := rawDelegation(child.DelegationID); after != before {
		t.Fatalf("the existing delegation was rewritten:\nbefore %s\nafter  %s", before, after)
	}
	for parentID, want := range map[string][]string{parent.Thread.ID: {child.Thread.ID}, child.Thread.ID: {grand.Thread.ID}} {
		kids, err := th.Store().ChildrenOf(model.ThreadID(parentID))
		if err != nil || !slices.Equal(strIDs(kids), want) {
			t.Fatalf("children of %s: %v (%v), want %v", parentID, kids, err, want)
		}
	}
}

func strIDs(ids []model.ThreadID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

// Scenario: S000-19
func TestS000_19_RestartBringsBackDelegationsOriginsAndRefs(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c, rt := th.client("bot"), th.runtimeClient()
	cwd := t.TempDir()
	parentTask := "parent task text 7c1e4b"
	childTask := "child task text 93d2aa"
	parent := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: parentTask, Refs: []string{refA}, Cwd: cwd})
	child := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "fail", Task: childTask, Refs: []string{refB}, RequestID: "restart-req", Cwd: cwd})
	waitStopped(t, c, parent.Thread.ID)
	waitStopped(t, c, child.Thread.ID)
	eventually(t, "the child's delegation to record its failure", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationFailed
	})

	snapshot := func(c *api.Client) map[string]string {
		out := map[string]string{}
		for _, id := range []string{parent.Thread.ID, child.Thread.ID} {
			out["read "+id] = string(callRaw(t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id}))
		}
		for name, p := range map[string]api.ThreadListParams{
			"parent": {Parent: parent.Thread.ID}, "client": {Client: "bot"}, "refA": {Ref: refA}, "refB": {Ref: refB},
		} {
			out["list "+name] = strings.Join(threadIDs(call[api.ThreadListResult](t, c, api.MethodThreadList, p).Threads), ",")
		}
		return out
	}
	before := snapshot(c)

	th.restart()
	c, rt = th.client("bot"), th.runtimeClient()
	after := snapshot(c)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s after restart:\n%s\nbefore:\n%s", k, after[k], v)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	p, ch := readThread(t, c, parent.Thread.ID).Thread, readThread(t, c, child.Thread.ID).Thread
	if p.Origin == nil || p.Origin.Kind != model.OriginClient || p.Origin.Client != "bot" || !slices.Equal(p.Refs, []string{refA}) || p.Harness != "shell" {
		t.Fatalf("parent after restart: %+v origin %+v", p, p.Origin)
	}
	if ch.Origin == nil || ch.Origin.Kind != model.OriginThread || ch.Origin.ParentThread != parent.Thread.ID || ch.Origin.DelegationID != child.DelegationID ||
		!slices.Equal(ch.Refs, []string{refA, refB}) || ch.Harness != "fail" || ch.LastTurn == nil || ch.LastTurn.Status != model.TurnFailed {
		t.Fatalf("child after restart: %+v origin %+v", ch, ch.Origin)
	}
	if before["list parent"] != child.Thread.ID || before["list client"] != parent.Thread.ID || before["list refB"] != child.Thread.ID {
		t.Fatalf("lists before restart: %v", before)
	}
	d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
	if err != nil || d.ParentThread != model.ThreadID(parent.Thread.ID) || d.ParentHarness != "shell" || d.TargetHarness != "fail" || d.Status != model.DelegationFailed || d.RequestID != "restart-req" {
		t.Fatalf("delegation after restart: %+v (%v)", d, err)
	}
	// Idempotency survives too.
	again := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "fail", Task: childTask, RequestID: "restart-req", Cwd: cwd})
	if again.Thread.ID != child.Thread.ID || !again.Existing {
		t.Fatalf("request id after restart gave %s", again.Thread.ID)
	}

	// Records hold no conversation content: neither task text nor replies.
	th.close()
	for k, v := range dumpStore(t, th.home) {
		for _, s := range []string{parentTask, childTask, "7c1e4b", "93d2aa"} {
			if strings.Contains(k, s) || strings.Contains(v, s) {
				t.Fatalf("store record %q holds task text %q: %s", k, s, v)
			}
		}
	}
}

// Bad input is refused with its code, and nothing of it reaches the store or the transcripts.
func TestInvalidRequestsAreRefusedAndStoreNothing(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c := th.client("bot")
	cwd := t.TempDir()
	refs16 := make([]string, model.MaxRefsPerThread)
	for i := range refs16 {
		refs16[i] = fmt.Sprintf("https://example.com/ref/%d", i)
	}
	parent := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent with 16 refs", Refs: refs16, Cwd: cwd})
	waitStopped(t, c, parent.Thread.ID)
	pid := parent.Thread.ID

	th.close()
	storeBefore := dumpStore(t, th.home)
	filesBefore := th.transcripts()
	transcriptBefore := string(th.transcript(pid))
	th.open()
	c, rt := th.client("bot"), th.runtimeClient()

	ok := api.DelegateStartParams{Harness: "shell", Task: "task", Cwd: cwd}
	with := func(f func(p *api.DelegateStartParams)) api.DelegateStartParams {
		p := ok
		p.Refs = nil
		f(&p)
		return p
	}
	longRef := "https://example.com/" + strings.Repeat("a", model.MaxRefLength)
	tooMany := append(slices.Clone(refs16), "https://example.com/ref/16")
	type bad struct {
		name   string
		c      *api.Client
		method string
		params any
		code   model.Code
	}
	cases := []bad{
		{"relative ref", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Refs = []string{"issues/12"} }), model.CodeInvalidArgument},
		{"ref over 2048 characters", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Refs = []string{longRef} }), model.CodeInvalidArgument},
		{"17 own refs", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Refs = tooMany }), model.CodeInvalidArgument},
		{"17th ref with 16 inherited", rt, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) {
			p.Caller.ParentThread, p.Refs = pid, []string{"https://example.com/ref/new"}
		}), model.CodeInvalidArgument},
		{"malformed parent thread", rt, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Caller.ParentThread = "not-a-thread" }), model.CodeInvalidArgument},
		{"malformed env thread", rt, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Caller.EnvThread = "codex://threads/123" }), model.CodeInvalidArgument},
		{"unknown parent thread", rt, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) {
			p.Caller.ParentThread = "0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b"
		}), model.CodeThreadNotFound},
		{"no caller thread at all", rt, api.MethodDelegateStart, ok, model.CodeFailedPrecondition},
		{"task over the limit", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Task = strings.Repeat("x", api.MaxTextBytes+1) }), model.CodeInvalidArgument},
		{"empty task", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Task = "" }), model.CodeInvalidArgument},
		{"unknown harness", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Harness = "nope" }), model.CodeHarnessNotFound},
		{"request id too long", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.RequestID = strings.Repeat("r", 257) }), model.CodeInvalidArgument},
		{"relative cwd", c, api.MethodDelegateStart, with(func(p *api.DelegateStartParams) { p.Cwd = "rel/dir" }), model.CodeInvalidArgument},
		{"read malformed id", c, api.MethodThreadRead, api.ThreadReadParams{Thread: "xyz"}, model.CodeInvalidArgument},
		{"read malformed link", c, api.MethodThreadRead, api.ThreadReadParams{Thread: "codex://threads/" + pid[:20]}, model.CodeInvalidArgument},
		{"read missing id", c, api.MethodThreadRead, api.ThreadReadParams{}, model.CodeInvalidArgument},
		{"read unknown view", c, api.MethodThreadRead, api.ThreadReadParams{Thread: pid, View: "everything"}, model.CodeInvalidArgument},
		{"read limit over 100", c, api.MethodThreadRead, api.ThreadReadParams{Thread: pid, View: model.ViewMessages, Limit: 101}, model.CodeInvalidArgument},
		{"wait malformed id", c, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: "123"}}, model.CodeInvalidArgument},
		{"wait negative timeout", c, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: pid}, TimeoutMs: api.WaitMs(-1)}, model.CodeInvalidArgument},
		{"send malformed id", c, api.MethodThreadSend, api.ThreadSendParams{Thread: "codex://threads/", Message: "hi"}, model.CodeInvalidArgument},
		{"send message over the limit", c, api.MethodThreadSend, api.ThreadSendParams{Thread: pid, Message: strings.Repeat("m", api.MaxTextBytes+1)}, model.CodeInvalidArgument},
		{"send empty message", c, api.MethodThreadSend, api.ThreadSendParams{Thread: pid}, model.CodeInvalidArgument},
		{"cancel malformed id", c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: "{" + pid + "}"}, model.CodeInvalidArgument},
		{"cancel idle thread", c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: pid}, model.CodeFailedPrecondition},
		{"list malformed parent", c, api.MethodThreadList, api.ThreadListParams{Parent: "parent"}, model.CodeInvalidArgument},
		{"list relative ref", c, api.MethodThreadList, api.ThreadListParams{Ref: "issues/12"}, model.CodeInvalidArgument},
		{"list limit over 100", c, api.MethodThreadList, api.ThreadListParams{Limit: 101}, model.CodeInvalidArgument},
		{"list unknown sort", c, api.MethodThreadList, api.ThreadListParams{Sort: "title-asc"}, model.CodeInvalidArgument},
		{"list malformed cursor", c, api.MethodThreadList, api.ThreadListParams{Cursor: "%%%"}, model.CodeInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { callErr(t, tc.c, tc.method, tc.params, tc.code) })
	}

	// A wrong token gets no connection at all.
	_, err := api.Dial(context.Background(), th.Endpoints()[0], "not-a-token")
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodePermissionDenied || me.Hint == "" {
		t.Fatalf("dial with a wrong token: %v", err)
	}

	th.close()
	storeAfter := dumpStore(t, th.home)
	for k, v := range storeAfter {
		if old, ok := storeBefore[k]; !ok {
			t.Errorf("new store key %q = %s", k, v)
		} else if old != v {
			t.Errorf("store key %q changed:\nbefore %s\nafter  %s", k, old, v)
		}
	}
	if len(storeAfter) != len(storeBefore) {
		t.Errorf("store has %d keys, had %d", len(storeAfter), len(storeBefore))
	}
	if files := th.transcripts(); !slices.Equal(files, filesBefore) {
		t.Errorf("transcripts %v, were %v", files, filesBefore)
	}
	if got := string(th.transcript(pid)); got != transcriptBefore {
		t.Errorf("the parent's transcript changed:\n%s", got)
	}
}

// An external harness turn sees the three connection parameters and its own thread id
// (what S000-05's caller resolution relies on), and no other CODEXHOST_* variable of the
// runtime's environment.
// Scenario: S000-09
func TestS000_09_ExternalTurnEnvironmentHasOnlyConnectionParameters(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}, environ: []string{"CODEXHOST_SECRET=x", "CODEXHOST_THREAD_ID=y", "CODEXHOST_CLIENT_TOKEN=leak"}})
	c := th.client("bot")
	res := delegate(t, c, api.DelegateStartParams{Harness: "env", Task: "print the environment", Cwd: t.TempDir()})
	r := waitStopped(t, c, res.Thread.ID)
	if r.Result == nil || r.Result.Status != model.TurnCompleted {
		t.Fatalf("env turn: %+v", r.Result)
	}
	got := codexhostVars(r.Result.Text)
	want := map[string]string{
		"CODEXHOST_CLI_PATH":         th.opts.CLIPath,
		"CODEXHOST_RUNTIME_ENDPOINT": th.Endpoints()[0],
		"CODEXHOST_RUNTIME_TOKEN":    th.agents.ForThread(model.ThreadID(res.Thread.ID)),
		"CODEXHOST_THREAD_ID":        res.Thread.ID,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("CODEXHOST_* of the turn:\n%v\nwant\n%v", got, want)
	}
	// The endpoint and token it was given really reach this runtime as a runtime caller.
	cl, err := api.Dial(context.Background(), got["CODEXHOST_RUNTIME_ENDPOINT"], got["CODEXHOST_RUNTIME_TOKEN"])
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if cl.Caller().Kind != api.CallerRuntime || cl.Caller().Thread != res.Thread.ID {
		t.Fatalf("connected as %+v, want the agent of %s", cl.Caller(), res.Thread.ID)
	}
}

// Records carrying fields this build does not know, and record kinds under prefixes it does
// not know (as a newer build writes them), are read, used and rewritten without loss: the
// same rule that lets an older build keep the delegations a newer one wrote.
// Scenario: S000-20
func TestS000_20_RecordsOfANewerBuildSurviveUseAndRewrite(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c, rt := th.client("bot"), th.runtimeClient()
	cwd := t.TempDir()
	parent := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Refs: []string{refA}, Cwd: cwd})
	child := delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: "child", Cwd: cwd})
	waitStopped(t, c, child.Thread.ID)
	eventually(t, "the child's delegation to complete", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted
	})
	before, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
	if err != nil {
		t.Fatal(err)
	}
	th.close()

	// What a newer build adds: a field on each record kind, and a kind of its own.
	st, err := store.Open(th.home, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys := [][2]string{{store.PrefixDelegation, child.DelegationID}, {store.PrefixOrigin, child.Thread.ID}, {store.PrefixThread, child.Thread.ID}}
	const future = `{"v":3,"kind":"unknown to this build"}`
	err = st.Update(func(tx *store.Tx) error {
		for _, k := range keys {
			raw, err := tx.GetRaw(k[0], k[1])
			if err != nil {
				return err
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return err
			}
			m["newerField"] = json.RawMessage(`{"n":1}`)
			if raw, err = json.Marshal(m); err != nil {
				return err
			}
			if err := tx.PutRaw(k[0], k[1], raw); err != nil {
				return err
			}
		}
		return tx.PutRaw("future", "rec-1", []byte(future))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	th.open()
	c = th.client("bot")
	r := readThread(t, c, child.Thread.ID)
	if r.Thread.Origin == nil || r.Thread.Origin.ParentThread != parent.Thread.ID || !slices.Equal(r.Thread.Refs, []string{refA}) {
		t.Fatalf("child read with newer fields: %+v", r.Thread)
	}
	if ids := threadIDs(call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Parent: parent.Thread.ID}).Threads); !slices.Equal(ids, []string{child.Thread.ID}) {
		t.Fatalf("--parent with newer fields: %v", ids)
	}
	// A new turn makes this build rewrite the delegation and thread records.
	call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: child.Thread.ID, Message: "again"})
	waitStopped(t, c, child.Thread.ID)
	eventually(t, "the delegation to be rewritten", func() bool {
		d, err := th.Store().DelegationOfChild(model.ThreadID(child.Thread.ID))
		return err == nil && d.Status == model.DelegationCompleted && d.UpdatedAt.After(before.UpdatedAt)
	})
	th.close()

	dump := dumpStore(t, th.home)
	for _, k := range keys {
		if v := dump[k[0]+"/"+k[1]]; !strings.Contains(v, `"newerField":{"n":1}`) {
			t.Errorf("%s/%s lost the newer field: %s", k[0], k[1], v)
		}
	}
	if v := dump["future/rec-1"]; v != future {
		t.Errorf("the unknown record kind became %q", v)
	}
	var d model.Delegation
	if err := json.Unmarshal([]byte(dump[store.PrefixDelegation+"/"+child.DelegationID]), &d); err != nil || d.ParentThread != model.ThreadID(parent.Thread.ID) || d.Status != model.DelegationCompleted {
		t.Errorf("delegation after the rewrite: %+v (%v)", d, err)
	}
}

// A client added to config.toml while the runtime runs can connect without a restart, and is
// the origin of what it delegates.
func TestClientAddedWhileRunningConnectsAsThatClient(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{})
	cfg, err := config.Load(th.home)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cfg.AddClient("late", config.Grant{})
	if err != nil {
		t.Fatal(err)
	}
	if err := config.Save(th.home, cfg); err != nil {
		t.Fatal(err)
	}
	c := th.dial(tok)
	if got := c.Caller(); got.Kind != api.CallerClient || got.Client != "late" {
		t.Fatalf("connected as %+v", got)
	}
	res := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "from a late client", Cwd: t.TempDir()})
	if res.Thread.Origin == nil || res.Thread.Origin.Kind != model.OriginClient || res.Thread.Origin.Client != "late" {
		t.Fatalf("origin %+v", res.Thread.Origin)
	}
}
