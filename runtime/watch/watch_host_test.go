package watch_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S000-28 (S001-01)
func TestWatchS000_28_RunningThreadReturnsWatchingAtOnce(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	r := w.idle()
	res := w.watch(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: r.id})
	if res.State != model.WatchWatching || res.Existing || res.Watch == nil {
		t.Fatalf("watch: %+v", res)
	}
	got := *res.Watch
	if got.Thread != model.ThreadID(th.id) || got.Notify != r.id || got.RunningTurn != th.turn ||
		!got.RegisteredAt.Equal(wT0) || !got.Deadline.Equal(wT0.Add(model.DefaultWatchTimeout)) {
		t.Fatalf("registered %+v", got)
	}
	// The answer came while the thread could not have stopped: its gate is still closed.
	if !w.running(th.id) {
		t.Fatal("the watched thread stopped before the watch answered")
	}
	if l := w.watches(); len(l.Watching) != 1 || l.Watching[0].ID != got.ID {
		t.Fatalf("watches: %+v", l)
	}
	w.openGate(th)
	w.waitUserMessages(r.id, 2)
}

// Scenario: S000-30 (S001-03)
func TestWatchS000_30_RecipientRules(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	r1, r2 := w.idle(), w.idle()
	rt, bot := w.rt(), w.Client("bot")

	// --notify first, as a bare id or a link; it wins over CODEXHOST_THREAD_ID.
	if got := w.watching(rt, api.ThreadWatchParams{Thread: th.id, Notify: "codex://threads/" + r1.id, Caller: api.CallerHint{EnvThread: r2.id}}); got.Notify != r1.id {
		t.Fatalf("--notify with an env thread: notify %q", got.Notify)
	}
	// Then CODEXHOST_THREAD_ID, for a runtime caller and for a client.
	if got := w.watching(rt, api.ThreadWatchParams{Thread: th.id, Caller: api.CallerHint{EnvThread: r2.id}}); got.Notify != r2.id {
		t.Fatalf("env thread: notify %q", got.Notify)
	}
	// Then the calling client, through its own token; client:<self> is the same.
	if got := w.watching(bot, api.ThreadWatchParams{Thread: th.id}); got.Notify != "client:bot" {
		t.Fatalf("client default: notify %q", got.Notify)
	}
	if res := w.watch(bot, api.ThreadWatchParams{Thread: th.id, Notify: "client:bot"}); !res.Existing || res.Watch.Notify != "client:bot" {
		t.Fatalf("client:bot by bot: %+v", res)
	}

	// Nothing else: a runtime caller without both fails, even with exactly one thread running
	// (the watched one), which a caller inference would pick.
	me := wCallErr(t, rt, api.MethodThreadWatch, api.ThreadWatchParams{Thread: r1.id}, model.CodeInvalidArgument)
	if !strings.Contains(me.Hint+me.Message, "--notify") {
		t.Fatalf("the error does not ask for --notify: %+v", me)
	}
	if !w.running(th.id) {
		t.Fatal("no thread was running during the check")
	}
	wCallErr(t, rt, api.MethodThreadWatch, api.ThreadWatchParams{Thread: th.id, Notify: "client:bot"}, model.CodePermissionDenied)
	wCallErr(t, bot, api.MethodThreadWatch, api.ThreadWatchParams{Thread: th.id, Notify: "client:other"}, model.CodePermissionDenied)
	if l := w.watches(); len(l.Watching) != 3 {
		t.Fatalf("watches: %+v", l.Watching)
	}
}

// Scenario: S000-32 (S001-05) — turn/start on the running native turn steers it (same turn
// id); the watch keeps watching and reports the turn's real end once.
func TestWatchS000_32_SteerIsNotAStop(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{native: true})
	w.Fake.Enqueue(fakemodel.Slow(50*time.Millisecond, time.Minute))
	ctx := context.Background()
	res := hosttest.Call[api.DelegateStartResult](t, w.Client("ops"), api.MethodDelegateStart, api.DelegateStartParams{Harness: model.NativeHarness, Task: "steer me", Cwd: t.TempDir()})
	id := res.Thread.ID
	if _, err := w.Fake.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	turn := w.read(id).Thread.LastTurn
	if turn == nil || turn.Status != model.TurnInProgress {
		t.Fatalf("native turn: %+v", turn)
	}
	reg := w.watching(w.Client("bot"), api.ThreadWatchParams{Thread: id})

	// Scenario: S000-30 — one native thread has an active turn (a caller inference would pick
	// it); a runtime caller without --notify or CODEXHOST_THREAD_ID still fails.
	if a := w.Native().Active(); !slices.Equal(a, []model.ThreadID{model.ThreadID(id)}) {
		t.Fatalf("active native threads: %v", a)
	}
	other := w.gated("")
	wCallErr(t, w.rt(), api.MethodThreadWatch, api.ThreadWatchParams{Thread: other.id}, model.CodeInvalidArgument)
	w.openGate(other)

	c, err := w.Native().Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	steered, err := c.TurnStart(ctx, appserver.TurnStartParams{ThreadID: id, Input: appserver.TextInput("STEERED change of direction")})
	if err != nil || steered.ID != turn.ID {
		t.Fatalf("turn/start on the active turn: %+v %v (want turn %s)", steered, err, turn.ID)
	}
	ev := w.event("bot", reg.ID)
	if ev.Result != model.ResultCompleted || ev.Turn != turn.ID {
		t.Fatalf("after the steer: %+v", ev)
	}
	// The steer reached the model in that turn, and the watch reported one stop.
	steerSeen := false
	for _, r := range w.Fake.Requests() {
		steerSeen = steerSeen || strings.Contains(string(r.Body), "STEERED change of direction")
	}
	if !steerSeen {
		t.Fatal("the steer never reached the model")
	}
	n := 0
	for _, e := range w.events("bot", "", 100).Events {
		if e.Watch == reg.ID {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d notifications for one watch", n)
	}
}

// Scenario: S000-38 (S001-11)
func TestWatchS000_38_UserStopsTheRecipient(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, a, b := w.gated(""), w.gated(""), w.gated("")
	rt := w.rt()
	wa := w.watching(rt, api.ThreadWatchParams{Thread: a.id, Notify: rcpt.id})
	wb := w.watching(rt, api.ThreadWatchParams{Thread: b.id, Notify: rcpt.id})
	w.openGate(a)
	w.waitPending(wa.ID)

	// The user stops the recipient's turn: the pending notification then starts a new turn,
	// and the other watch is still registered.
	hosttest.Call[api.ThreadCancelResult](t, rt, api.MethodThreadCancel, api.ThreadCancelParams{Thread: rcpt.id})
	msgs := w.waitUserMessages(rcpt.id, 2)
	if !strings.Contains(msgs[1], a.id) {
		t.Fatalf("notification %q", msgs[1])
	}
	if got, in := w.find(wb.ID); in != model.WatchWatching || got.Notify != rcpt.id {
		t.Fatalf("the other watch after the stop: %q %+v", in, got)
	}
	if read := w.read(rcpt.id); read.Result == nil || read.Thread.Status != model.ThreadIdle {
		t.Fatalf("recipient after its notification: %+v", read.Thread)
	}
	w.openGate(b)
	msgs = w.waitUserMessages(rcpt.id, 3)
	if !strings.Contains(msgs[2], b.id) {
		t.Fatalf("second notification %q", msgs[2])
	}
}

// Scenario: S000-46 — a client recipient gets an entry in its event log, no turn; the log
// pages with a cursor, belongs to that client only, and is not readable with the runtime token.
func TestWatchS000_46_ClientRecipientEventLog(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	bot := w.Client("bot")
	var ths []wThread
	var ids []string
	for range 3 {
		th := w.gated("")
		ths = append(ths, th)
		ids = append(ids, w.watching(bot, api.ThreadWatchParams{Thread: th.id}).ID)
	}
	for _, th := range ths {
		w.openGate(th)
		w.waitStopped(th.id)
	}
	w.event("bot", ids[2])
	w.event("bot", ids[0])
	w.event("bot", ids[1])

	page1 := w.events("bot", "", 2)
	page2 := w.events("bot", page1.NextCursor, 2)
	page3 := w.events("bot", page2.NextCursor, 2)
	if len(page1.Events) != 2 || len(page2.Events) != 1 || len(page3.Events) != 0 || page3.NextCursor != page2.NextCursor {
		t.Fatalf("pages: %+v / %+v / %+v", page1, page2, page3)
	}
	var got []string
	for _, ev := range append(page1.Events, page2.Events...) {
		if ev.Type != "watch.notification" || ev.Result != model.ResultCompleted || ev.Cursor == "" {
			t.Fatalf("event %+v", ev)
		}
		got = append(got, ev.Watch)
	}
	if !wSameStrings(got, ids) {
		t.Fatalf("events for %v, want %v", got, ids)
	}
	// No turn anywhere: each watched thread kept its single turn.
	for _, th := range ths {
		if msgs := w.userMessages(th.id); len(msgs) != 1 {
			t.Fatalf("thread %s: %q", th.id, msgs)
		}
	}
	if evs := w.events("other", "", 100).Events; len(evs) != 0 {
		t.Fatalf("another client sees %+v", evs)
	}
	wCallErr(t, w.rt(), api.MethodClientEvents, api.ClientEventsParams{}, model.CodePermissionDenied)
	wCallErr(t, bot, api.MethodClientEvents, api.ClientEventsParams{After: "not-a-cursor"}, model.CodeInvalidArgument)
}

func wSameStrings(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Scenario: S000-30 (S001-03) — malformed or unknown ids, notifying oneself, another client, timeouts out
// of range: clear errors and nothing stored.
func TestWatchBadInputStoresNothing(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	r := w.idle()
	rt, bot := w.rt(), w.Client("bot")
	unknown := "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee"
	for _, c := range []struct {
		caller *api.Client
		p      api.ThreadWatchParams
		code   model.Code
	}{
		{rt, api.ThreadWatchParams{Notify: r.id}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: "not-a-thread", Notify: r.id}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: "codex://threads/xyz", Notify: r.id}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: unknown, Notify: r.id}, model.CodeThreadNotFound},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: "nope"}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: unknown}, model.CodeThreadNotFound},
		{rt, api.ThreadWatchParams{Thread: th.id, Caller: api.CallerHint{EnvThread: "garbage"}}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: th.id}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: "codex://threads/" + strings.ToUpper(th.id)}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: th.id, Caller: api.CallerHint{EnvThread: th.id}}, model.CodeInvalidArgument},
		{bot, api.ThreadWatchParams{Thread: th.id, Notify: "client:other"}, model.CodePermissionDenied},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: r.id, TimeoutMs: -1}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: r.id, TimeoutMs: int64(model.MaxWatchTimeout/time.Millisecond) + 1}, model.CodeInvalidArgument},
		{rt, api.ThreadWatchParams{Thread: th.id, Notify: r.id, TimeoutMs: 1 << 62}, model.CodeInvalidArgument},
	} {
		wCallErr(t, c.caller, api.MethodThreadWatch, c.p, c.code)
	}
	if l := w.watches(); len(l.Watching)+len(l.Pending)+len(l.Undeliverable) != 0 {
		t.Fatalf("watches: %+v", l)
	}
	if n := w.storedWatches(); n != 0 {
		t.Fatalf("%d watch records stored", n)
	}
	// The longest timeout is accepted.
	got := w.watching(rt, api.ThreadWatchParams{Thread: th.id, Notify: r.id, TimeoutMs: int64(model.MaxWatchTimeout / time.Millisecond)})
	if !got.Deadline.Equal(wT0.Add(model.MaxWatchTimeout)) {
		t.Fatalf("deadline %v", got.Deadline)
	}
}

// `delegate start --watch true` registers a watch on the child for the resolved caller: the
// calling thread, or the calling client.
func TestWatchDelegateStartWatchesTheChild(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	parent := w.idle()
	gate1, gate2 := filepath.Join(w.gates, "child1"), filepath.Join(w.gates, "child2")
	res := hosttest.Call[api.DelegateStartResult](t, w.rt(), api.MethodDelegateStart, api.DelegateStartParams{
		Caller: api.CallerHint{EnvThread: parent.id}, Harness: "wgate", Task: "child @gate:" + gate1 + " ", Cwd: w.gates, Watch: true})
	if res.Watch == nil || res.Watch.State != model.WatchWatching || res.Watch.Watch.Notify != parent.id || res.Watch.Watch.Thread != model.ThreadID(res.Thread.ID) {
		t.Fatalf("delegate --watch from a thread: %+v", res.Watch)
	}
	byClient := hosttest.Call[api.DelegateStartResult](t, w.Client("bot"), api.MethodDelegateStart, api.DelegateStartParams{
		Harness: "wgate", Task: "client child @gate:" + gate2 + " ", Cwd: w.gates, Watch: true, WatchTimeoutMs: 60000})
	if byClient.Watch == nil || byClient.Watch.Watch.Notify != "client:bot" || !byClient.Watch.Watch.Deadline.Equal(wT0.Add(time.Minute)) {
		t.Fatalf("delegate --watch from a client: %+v", byClient.Watch)
	}
	if l := w.watches(); len(l.Watching) != 2 {
		t.Fatalf("watches: %+v", l)
	}
	w.openGate(wThread{gate: gate1})
	w.openGate(wThread{gate: gate2})
	msgs := w.waitUserMessages(parent.id, 2)
	if !strings.Contains(msgs[1], res.Thread.ID) {
		t.Fatalf("parent notification %q", msgs[1])
	}
	if ev := w.event("bot", byClient.Watch.Watch.ID); ev.Result != model.ResultCompleted || ev.Thread != model.ThreadID(byClient.Thread.ID) {
		t.Fatalf("client event %+v", ev)
	}
}
