package threads_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S000-01
func TestS000_01_RefOnStartShowsInResponseReadAndList(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "fix the issue", Refs: []string{refA}, Cwd: t.TempDir()})
	want := []string{refA}
	if !slices.Equal(res.Thread.Refs, want) {
		t.Fatalf("delegate response refs %q, want %q", res.Thread.Refs, want)
	}
	if got := hosttest.ReadThread(t, c, res.Thread.ID).Thread.Refs; !slices.Equal(got, want) {
		t.Fatalf("thread.read refs %q, want %q", got, want)
	}
	list := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{})
	row, ok := findThread(list.Threads, res.Thread.ID)
	if !ok || !slices.Equal(row.Refs, want) {
		t.Fatalf("thread.list row %+v (found %v), want refs %q", row, ok, want)
	}
	byRef := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Ref: refA})
	if ids := hosttest.ThreadIDs(byRef.Threads); !slices.Equal(ids, []string{res.Thread.ID}) || !slices.Equal(byRef.Threads[0].Refs, want) {
		t.Fatalf("thread.list --ref: %+v", byRef.Threads)
	}
}

// Scenario: S000-02
func TestS000_02_ChildInheritsParentRefsThenItsOwn(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent", Refs: []string{refA}, Cwd: cwd})

	// The parent names itself with --parent-thread.
	child := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent.Thread.ID}, Harness: "shell", Task: "child", Refs: []string{refB}, Cwd: cwd})
	if want := []string{refA, refB}; !slices.Equal(child.Thread.Refs, want) {
		t.Fatalf("child refs %q, want %q", child.Thread.Refs, want)
	}
	if o := child.Thread.Origin; o == nil || o.Kind != model.OriginThread || o.ParentThread != parent.Thread.ID || o.DelegationID != child.DelegationID || child.DelegationID == "" {
		t.Fatalf("child origin %+v, delegation %q", o, child.DelegationID)
	}
	if got := hosttest.ReadThread(t, c, child.Thread.ID).Thread.Refs; !slices.Equal(got, []string{refA, refB}) {
		t.Fatalf("thread.read of the child: refs %q", got)
	}

	// The parent is known from CODEXHOST_THREAD_ID; a repeated ref is not added twice and the
	// inherited one keeps its place.
	child2 := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: parent.Thread.ID}, Harness: "shell", Task: "child two", Refs: []string{refB, refA}, Cwd: cwd})
	if want := []string{refA, refB}; !slices.Equal(child2.Thread.Refs, want) || child2.Thread.Origin.ParentThread != parent.Thread.ID {
		t.Fatalf("second child refs %q origin %+v", child2.Thread.Refs, child2.Thread.Origin)
	}

	// Inheritance goes on down the chain.
	grand := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{EnvThread: child.Thread.ID}, Harness: "shell", Task: "grandchild", Refs: []string{refC}, Cwd: cwd})
	if want := []string{refA, refB, refC}; !slices.Equal(grand.Thread.Refs, want) {
		t.Fatalf("grandchild refs %q, want %q", grand.Thread.Refs, want)
	}
	// The parent's own refs are untouched by its children's.
	if got := hosttest.ReadThread(t, c, parent.Thread.ID).Thread.Refs; !slices.Equal(got, []string{refA}) {
		t.Fatalf("parent refs changed to %q", got)
	}
}

// Scenario: S000-03
func TestS000_03_CredentialsInRefsAreNeverStored(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
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
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "credentials task", Refs: given, Cwd: t.TempDir()})
	if !slices.Equal(res.Thread.Refs, want) {
		t.Fatalf("response refs %q, want %q", res.Thread.Refs, want)
	}
	if got := hosttest.ReadThread(t, c, res.Thread.ID).Thread.Refs; !slices.Equal(got, want) {
		t.Fatalf("thread.read refs %q, want %q", got, want)
	}
	// A ref given with its credentials finds the thread by its stripped form.
	byRef := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{Ref: given[1]})
	if ids := hosttest.ThreadIDs(byRef.Threads); !slices.Equal(ids, []string{res.Thread.ID}) {
		t.Fatalf("thread.list --ref with credentials: %v", ids)
	}
	for _, s := range secrets {
		raw := string(hosttest.CallRaw(t, c, api.MethodThreadList, api.ThreadListParams{}))
		if strings.Contains(raw, s) {
			t.Fatalf("thread.list result contains %q: %s", s, raw)
		}
	}

	hosttest.WaitStopped(t, c, res.Thread.ID)
	th.Shutdown()
	for k, v := range hosttest.DumpStore(t, th.Home) {
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
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	me := hosttest.CallErr(t, c, api.MethodDelegateStart, api.DelegateStartParams{Harness: "claude", Task: "hello"}, model.CodeHarnessNotFound)
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
	if n := len(th.Transcripts()); n != 0 {
		t.Fatalf("%d transcripts after a refused delegation", n)
	}
}

// Bad input is refused with its code, and nothing of it reaches the store or the transcripts.
func TestInvalidRequestsAreRefusedAndStoreNothing(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	cwd := t.TempDir()
	refs16 := make([]string, model.MaxRefsPerThread)
	for i := range refs16 {
		refs16[i] = fmt.Sprintf("https://example.com/ref/%d", i)
	}
	parent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "parent with 16 refs", Refs: refs16, Cwd: cwd})
	hosttest.WaitStopped(t, c, parent.Thread.ID)
	pid := parent.Thread.ID
	// The marker engine settles the ended turn just after: a shutdown before that leaves it
	// in flight, and the next runtime settles it, which is no change made by bad input.
	hosttest.Eventually(t, "the parent's turn settled", func() bool {
		inFlight := 0
		_ = th.Store().MarkerTurns(func(model.MarkerTurn) error { inFlight++; return nil })
		return inFlight == 0
	})

	th.Shutdown()
	storeBefore := hosttest.DumpStore(t, th.Home)
	filesBefore := th.Transcripts()
	transcriptBefore := string(th.Transcript(pid))
	th.Restart() // after Shutdown, Restart only opens
	c, rt := th.Client("bot"), th.RuntimeClient()

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
		t.Run(tc.name, func(t *testing.T) { hosttest.CallErr(t, tc.c, tc.method, tc.params, tc.code) })
	}

	// A wrong token gets no connection at all.
	_, err := api.Dial(context.Background(), th.Endpoints()[0], "not-a-token")
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodePermissionDenied || me.Hint == "" {
		t.Fatalf("dial with a wrong token: %v", err)
	}

	th.Shutdown()
	storeAfter := hosttest.DumpStore(t, th.Home)
	for k, v := range storeAfter {
		if old, ok := storeBefore[k]; !ok {
			t.Errorf("new store key %q = %s", k, v)
		} else if old != v {
			t.Errorf("store key %q changed:\nbefore %s\nafter  %s", k, old, v)
		}
	}
	for k := range storeBefore {
		if _, ok := storeAfter[k]; !ok {
			t.Errorf("store key %q is gone", k)
		}
	}
	if files := th.Transcripts(); !slices.Equal(files, filesBefore) {
		t.Errorf("transcripts %v, were %v", files, filesBefore)
	}
	if got := string(th.Transcript(pid)); got != transcriptBefore {
		t.Errorf("the parent's transcript changed:\n%s", got)
	}
}

// A watch window without --watch would be dropped without a word: the caller would wait for
// a notification that never comes. It is refused, and nothing is started.
func TestWatchTimeoutWithoutWatchIsRefused(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	e := hosttest.CallErr(t, c, api.MethodDelegateStart, api.DelegateStartParams{Harness: "shell", Task: "t", Cwd: t.TempDir(), WatchTimeoutMs: 60000}, model.CodeInvalidArgument)
	if !strings.Contains(e.Hint, "--watch true") {
		t.Fatalf("hint %q", e.Hint)
	}
	if list := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true}); len(list.Threads) != 0 {
		t.Fatalf("a thread was started: %+v", list.Threads)
	}
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "t", Cwd: t.TempDir(), Watch: true, WatchTimeoutMs: 60000})
	if res.Watch == nil {
		t.Fatalf("with --watch true the window is taken: %+v", res)
	}
}
