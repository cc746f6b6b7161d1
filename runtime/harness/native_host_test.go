package harness_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/marker/markertest"
)

// These tests drive the native harness through a whole Host (runtime/hosttest), running the
// real `codex app-server` against the loopback fake model; they skip (or fail with
// CODEXHOST_REQUIRE_CODEX=1) when Codex is not installed.

// refA is a ref a delegation carries.
const refA = "https://github.com/o/r/issues/12"

// Scenario: S000-04
func TestS000_04_NativeThreadsNotMadeByDelegationHaveEmptyRefs(t *testing.T) {
	t.Parallel()
	// An operator: listing, sending to and cancelling sessions codexhost did not start need its scopes.
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"bot"}})
	c := th.Client("bot")

	// One created by a Codex process outside codexhost, one started on the harness directly.
	outside := hosttest.Stored(t, th.CodexHome, "made elsewhere")
	direct := string(hosttest.StartNative(t, th, "made directly"))
	hosttest.WaitStopped(t, c, direct)

	for _, id := range []string{outside, direct} {
		raw := hosttest.CallRaw(t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: id})
		var r struct {
			Thread map[string]json.RawMessage `json:"thread"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if string(r.Thread["refs"]) != "[]" || r.Thread["origin"] != nil {
			t.Fatalf("thread.read of %s: %s", id, raw)
		}
	}
	// thread.list shows both (from the App Server's catalog) with an empty ref list.
	hosttest.Eventually(t, "both native threads in thread.list", func() bool {
		var res struct {
			Threads []map[string]json.RawMessage `json:"threads"`
		}
		if err := json.Unmarshal(hosttest.CallRaw(t, c, api.MethodThreadList, api.ThreadListParams{}), &res); err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, row := range res.Threads {
			var id string
			_ = json.Unmarshal(row["id"], &id)
			if id == outside || id == direct {
				if string(row["refs"]) != "[]" || row["origin"] != nil {
					t.Fatalf("thread.list row of %s: refs %s origin %s", id, row["refs"], row["origin"])
				}
				found++
			}
		}
		return found == 2
	})
}

// A delegation to the native harness answers with the child, which reads at once like any
// other thread, and runs its task.
func TestNativeDelegationIsReadableAtOnce(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}})
	c := th.Client("bot")
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "hello native", Refs: []string{refA}, Cwd: t.TempDir()})
	id := res.Thread.ID
	if res.Existing || res.Thread.Harness != model.NativeHarness || res.Thread.Origin == nil || res.Thread.Origin.Client != "bot" || !slices.Equal(res.Thread.Refs, []string{refA}) {
		t.Fatalf("delegate to codex: %+v", res)
	}
	// No pause: the first turn has just started and may not be on disk yet.
	r := hosttest.ReadThread(t, c, id)
	if r.Thread.ID != id || !slices.Equal(r.Thread.Refs, []string{refA}) {
		t.Fatalf("read right after delegation: %+v", r.Thread)
	}
	done := hosttest.WaitStopped(t, c, id)
	if done.Result == nil || done.Result.Status != model.TurnCompleted || done.Result.Text != "fake reply #1 to: hello native" {
		t.Fatalf("native child result %+v", done.Result)
	}
	if again := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "hello native", Cwd: res.Thread.Cwd}); again.Thread.ID != id || !again.Existing {
		t.Fatalf("repeat gave %s (existing %v)", again.Thread.ID, again.Existing)
	}
	// Listed once, whether found through the records or the App Server's catalog.
	list := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{})
	n := 0
	for _, row := range list.Threads {
		if row.ID == id {
			n++
			if row.Origin == nil || row.Origin.Client != "bot" || !slices.Equal(row.Refs, []string{refA}) {
				t.Fatalf("list row %+v", row)
			}
		}
	}
	if n != 1 {
		t.Fatalf("the native child is listed %d times", n)
	}
}

// Several native threads with active turns make a runtime caller that names no thread
// ambiguous. With exactly one, that thread is the caller: the runtime half of S000-06 (the
// CLI half, connecting through the whitelisted parameters, is the CLI's to test).
// Scenario: S000-08
// Scenario: S000-06
func TestS000_08_SeveralActiveNativeThreadsMakeTheCallerAmbiguous(t *testing.T) {
	t.Parallel()
	// An operator: listing, sending to and cancelling sessions codexhost did not start need its scopes.
	// shell is opened to sandboxed authors: the native parents run in Codex's read-only sandbox.
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"bot"}, Harnesses: markertest.SandboxedCallersAllowed(hosttest.Harnesses(), "shell")})
	c, rt := th.Client("bot"), th.RuntimeClient()
	cwd := t.TempDir()
	n1 := string(hosttest.StartNative(t, th, hosttest.SlowTask+" one"))

	// One active native thread: it is the caller (S000-06).
	one := hosttest.Delegate(t, rt, api.DelegateStartParams{Harness: "shell", Task: "from the only running native turn", Cwd: cwd})
	if o := one.Thread.Origin; o == nil || o.Kind != model.OriginThread || o.ParentThread != n1 {
		t.Fatalf("caller with one active native thread: origin %+v, want parent %s", o, n1)
	}
	if d, err := th.Store().DelegationOfChild(model.ThreadID(one.Thread.ID)); err != nil || d.ParentThread != model.ThreadID(n1) || d.ParentHarness != "codex" {
		t.Fatalf("delegation %+v (%v)", d, err)
	}

	n2 := string(hosttest.StartNative(t, th, hosttest.SlowTask+" two"))
	records, files := th.ThreadRecords(), len(th.Transcripts())
	me := hosttest.CallErr(t, rt, api.MethodDelegateStart, api.DelegateStartParams{Harness: "shell", Task: "who am I", Cwd: cwd}, model.CodeParentThreadAmbiguous)
	if !strings.Contains(me.Hint, "--parent-thread") {
		t.Fatalf("the ambiguity does not ask for --parent-thread: %+v", me)
	}
	want := []string{n1, n2}
	slices.Sort(want)
	var active []string
	list, _ := me.Details["activeThreads"].([]any)
	for _, v := range list {
		s, _ := v.(string)
		active = append(active, s)
	}
	if !slices.Equal(active, want) {
		t.Fatalf("details.activeThreads %v, want %v", me.Details["activeThreads"], want)
	}
	if th.ThreadRecords() != records || len(th.Transcripts()) != files {
		t.Fatal("an ambiguous delegation left a thread behind")
	}
	// Naming the parent resolves it.
	named := hosttest.Delegate(t, rt, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: n2}, Harness: "shell", Task: "named parent", Cwd: cwd})
	if named.Thread.Origin == nil || named.Thread.Origin.ParentThread != n2 {
		t.Fatalf("explicit parent: %+v", named.Thread.Origin)
	}
	// A client is never inferred from active turns.
	if res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "client task", Cwd: cwd}); res.Thread.Origin.Kind != model.OriginClient {
		t.Fatalf("client delegation origin %+v", res.Thread.Origin)
	}

	for _, id := range []string{n1, n2} {
		got := hosttest.Call[api.ThreadCancelResult](t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: id})
		if got.TurnID == "" {
			t.Fatalf("cancel %s: %+v", id, got)
		}
		if r := hosttest.WaitStopped(t, c, id); r.Thread.LastTurn == nil || r.Thread.LastTurn.Status != model.TurnInterrupted {
			t.Fatalf("native thread %s after cancel: %+v", id, r.Thread.LastTurn)
		}
	}
	// Nothing runs any more: the caller cannot be inferred.
	hosttest.CallErr(t, rt, api.MethodDelegateStart, api.DelegateStartParams{Harness: "shell", Task: "orphan", Cwd: cwd}, model.CodeFailedPrecondition)
}

// Scenario: S000-27
func TestS000_27_WaitOnARunningNativeThreadDoesNotStopIt(t *testing.T) {
	t.Parallel()
	// An operator: listing, sending to and cancelling sessions codexhost did not start need its scopes.
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"bot"}})
	c := th.Client("bot")
	id := string(hosttest.StartNative(t, th, hosttest.SlowTask))
	// The App Server reports the thread active a moment after the turn is persisted.
	var before hosttest.NativeState
	hosttest.Eventually(t, "the App Server to report "+id+" active", func() bool {
		before = hosttest.ObserveNative(t, th, id)
		return before.Status == appserver.StatusActive
	})
	w := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(300)})
	if w.TimedOut == nil || !*w.TimedOut || w.Thread.Status != model.ThreadActive {
		t.Fatalf("wait on a running native thread: timedOut %v status %s", w.TimedOut, w.Thread.Status)
	}
	// Still running, and the same turn: the wait neither interrupted nor steered it.
	if a := th.Native().Active(); !slices.Contains(a, model.ThreadID(id)) {
		t.Fatalf("not active after a wait: %v", a)
	}
	r := hosttest.ReadThread(t, c, id)
	if r.Thread.Status != model.ThreadActive || r.Thread.LastTurn == nil || r.Thread.LastTurn.Status != model.TurnInProgress {
		t.Fatalf("after the wait: %+v", r.Thread)
	}
	if after := hosttest.ObserveNative(t, th, id); after.Status != before.Status || !slices.Equal(after.Loaded, before.Loaded) {
		t.Fatalf("wait changed the thread: status %s→%s loaded %v→%v", before.Status, after.Status, before.Loaded, after.Loaded)
	}
	hosttest.CallErr(t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: id, Message: "interrupting"}, model.CodeThreadBusy)
	got := hosttest.Call[api.ThreadCancelResult](t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: id})
	done := hosttest.WaitStopped(t, c, id)
	if done.Thread.LastTurn == nil || done.Thread.LastTurn.ID != got.TurnID || done.Thread.LastTurn.Status != model.TurnInterrupted {
		t.Fatalf("after cancel: %+v", done.Thread.LastTurn)
	}
	if r.Thread.LastTurn.ID != got.TurnID {
		t.Fatalf("cancelled turn %s, the waited one was %s", got.TurnID, r.Thread.LastTurn.ID)
	}
}
