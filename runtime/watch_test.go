package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/runtime/watch"
)

// The watch tests drive a Host through its runtime API with an injected clock. Engine rules
// that depend on time (deadlines, BusyRetry, backoff, the 60 s, 5 min and 6 h rules) are
// reached by moving the clock, never by sleeping.

// wWait bounds every poll; only a broken runtime reaches it.
const wWait = 20 * time.Second

// wT0 is where every test clock starts.
var wT0 = time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC)

// wGateCmd echoes its prompt as the answer. A prompt holding "@gate:PATH " first waits until
// PATH exists (a test decides when such a turn ends; at most about a minute), and one holding
// "@fail" then exits 3. Notification turns hold neither, so they complete at once.
const wGateCmd = `p=$(cat); case "$p" in *@gate:*) g=${p#*@gate:}; g=${g%% *}; i=0; while [ ! -e "$g" ] && [ $i -lt 3000 ]; do sleep 0.02; i=$((i+1)); done;; esac; case "$p" in *@fail*) exit 3;; esac; printf '%s' "$p"`

func wHarnesses() map[string]config.Harness {
	return map[string]config.Harness{
		"wgate": {Command: []string{"sh", "-c", wGateCmd}},
		// A command that cannot start: its threads exist but never get a turn.
		"wbroken": {Command: []string{"/nonexistent/codexhost-wbroken"}},
	}
}

type wHostOptions struct {
	native    bool                      // run the real App Server on a fake model
	fakeOpts  []fakemodel.Option        // for the fake model
	harnesses map[string]config.Harness // nil: wHarnesses()
}

// wHost is a testHost on the watch harnesses and an injected clock, with clients "ops"
// (starts threads), "bot" and "other".
type wHost struct {
	*testHost
	gates string
	clock *fakeClock
	seq   atomic.Int64
}

func wNewHost(t *testing.T, o wHostOptions) *wHost {
	t.Helper()
	w := &wHost{gates: t.TempDir(), clock: newFakeClock(wT0)}
	if o.harnesses == nil {
		o.harnesses = wHarnesses()
	}
	w.testHost = newTestHost(t, hostOptions{codex: o.native, fakeOpts: o.fakeOpts, harnesses: o.harnesses,
		clients: []string{"ops", "bot", "other"}, now: w.clock.Now})
	return w
}

// restart closes the runtime and opens a new one on the same home; downtime runs in between,
// where a test may change files, the config and the clock.
func (w *wHost) restart(downtime func()) {
	w.t.Helper()
	w.close()
	if downtime != nil {
		downtime()
	}
	w.open()
}

// setHarness changes config.toml; harnesses are read when the runtime starts.
func (w *wHost) setHarness(name string, hc *config.Harness) {
	w.t.Helper()
	if hc == nil {
		delete(w.cfg.Harnesses, name)
	} else {
		w.cfg.Harnesses[name] = *hc
	}
	if err := config.Save(w.home, w.cfg); err != nil {
		w.t.Fatal(err)
	}
}

// rt connects as a process the host started.
func (w *wHost) rt() *api.Client { return w.runtimeClient() }

// advance moves the clock and makes the engine evaluate.
func (w *wHost) advance(d time.Duration) {
	w.clock.Advance(d)
	w.Host.watch.Kick()
}

// step runs one engine pass to its end: after it, everything due at the current time is
// decided, so a test can assert what has not happened yet.
func (w *wHost) step() { w.Host.watch.Step(context.Background()) }

// wCallErr calls method, which must fail with code and a hint.
func wCallErr(t *testing.T, c *api.Client, method string, params any, code model.Code) *model.Error {
	t.Helper()
	err := c.Call(context.Background(), method, params, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != code {
		t.Fatalf("%s %+v: want %s, got %v", method, params, code, err)
	}
	if me.Message == "" || me.Hint == "" {
		t.Fatalf("%s: %s without message or hint: %+v", method, code, me)
	}
	return me
}

// wEventually polls cond every 5 ms until it holds or wWait passes.
func wEventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	pollUntil(t, what, wWait, 5*time.Millisecond, cond)
}

// wThread is a thread started by the test, with the gate of its running turn, if any.
type wThread struct {
	id   string
	turn string // the turn started with it
	gate string
}

func (w *wHost) nextName(prefix string) string { return fmt.Sprintf("%s%d", prefix, w.seq.Add(1)) }

// startThread starts a thread on harness whose first turn runs text; cwd "" uses a shared one.
func (w *wHost) startThread(harness, text, cwd string) wThread {
	w.t.Helper()
	if cwd == "" {
		cwd = w.gates
	}
	res := call[api.DelegateStartResult](w.t, w.client("ops"), api.MethodDelegateStart,
		api.DelegateStartParams{Harness: harness, Task: text, Cwd: cwd})
	th := wThread{id: res.Thread.ID}
	if res.Thread.LastTurn != nil {
		th.turn = res.Thread.LastTurn.ID
	}
	return th
}

// gated starts a wgate thread whose turn runs until openGate.
func (w *wHost) gated(extra string) wThread {
	w.t.Helper()
	gate := filepath.Join(w.gates, w.nextName("g"))
	th := w.startThread("wgate", w.nextName("task ")+" @gate:"+gate+" "+extra, "")
	th.gate = gate
	if th.turn == "" || !w.running(th.id) {
		w.t.Fatalf("gated thread %s is not running", th.id)
	}
	return th
}

// idle starts a wgate thread whose turn completes at once and waits for it to end.
func (w *wHost) idle() wThread {
	w.t.Helper()
	th := w.startThread("wgate", w.nextName("quick task "), "")
	w.waitStopped(th.id)
	return th
}

// turnless starts a thread that never got a turn: its harness cannot start the command.
func (w *wHost) turnless() string { return w.turnlessOn("wbroken") }

func (w *wHost) turnlessOn(harness string) string {
	w.t.Helper()
	err := w.client("ops").Call(context.Background(), api.MethodDelegateStart,
		api.DelegateStartParams{Harness: harness, Task: w.nextName("never runs "), Cwd: w.gates}, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeDelegationFailed {
		w.t.Fatalf("start on wbroken: %v", err)
	}
	id, _ := me.Details["thread"].(string)
	if id == "" {
		w.t.Fatalf("no thread in %+v", me)
	}
	return id
}

func (w *wHost) openGate(th wThread) {
	w.t.Helper()
	if err := os.WriteFile(th.gate, nil, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// rerun starts another gated turn on an idle wgate thread.
func (w *wHost) rerun(th *wThread) {
	w.t.Helper()
	th.gate = filepath.Join(w.gates, w.nextName("g"))
	res := call[api.ThreadSendResult](w.t, w.rt(), api.MethodThreadSend, api.ThreadSendParams{Thread: th.id, Message: "again @gate:" + th.gate + " "})
	th.turn = res.TurnID
}

func (w *wHost) read(id string) api.ThreadReadResult {
	w.t.Helper()
	return call[api.ThreadReadResult](w.t, w.rt(), api.MethodThreadRead, api.ThreadReadParams{Thread: id})
}

func (w *wHost) running(id string) bool { return threads.Running(w.read(id).Thread) }

func (w *wHost) waitStopped(id string) api.ThreadReadResult {
	w.t.Helper()
	res := call[api.ThreadReadResult](w.t, w.rt(), api.MethodThreadWait, api.ThreadWaitParams{
		ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(int(wWait / time.Millisecond))})
	if res.TimedOut == nil || *res.TimedOut {
		w.t.Fatalf("thread %s still running", id)
	}
	return res
}

// userMessages are the user messages of a thread, oldest first.
func (w *wHost) userMessages(id string) []string {
	w.t.Helper()
	res := call[api.ThreadReadResult](w.t, w.rt(), api.MethodThreadRead, api.ThreadReadParams{Thread: id, View: model.ViewMessages, Limit: 100})
	var out []string
	for _, m := range res.Messages {
		if m.Role == model.RoleUser {
			out = append(out, m.Text)
		}
	}
	return out
}

// waitUserMessages waits until a thread holds n user messages and its turn ended.
func (w *wHost) waitUserMessages(id string, n int) []string {
	w.t.Helper()
	var got []string
	wEventually(w.t, fmt.Sprintf("%d user messages in %s", n, id), func() bool {
		got = w.userMessages(id)
		return len(got) >= n
	})
	w.waitStopped(id)
	if got = w.userMessages(id); len(got) != n {
		w.t.Fatalf("thread %s has %d user messages, want %d: %q", id, len(got), n, got)
	}
	return got
}

func (w *wHost) watch(c *api.Client, p api.ThreadWatchParams) api.WatchResult {
	w.t.Helper()
	return call[api.WatchResult](w.t, c, api.MethodThreadWatch, p)
}

// watching registers a watch that must come back watching.
func (w *wHost) watching(c *api.Client, p api.ThreadWatchParams) model.Watch {
	w.t.Helper()
	res := w.watch(c, p)
	if res.State != model.WatchWatching || res.Watch == nil {
		w.t.Fatalf("watch %+v: %+v", p, res)
	}
	return *res.Watch
}

func (w *wHost) watches() api.WatchesResult {
	w.t.Helper()
	return call[api.WatchesResult](w.t, w.rt(), api.MethodThreadWatches, nil)
}

// find returns a listed watch and its list ("" when not listed).
func (w *wHost) find(id string) (model.Watch, string) {
	w.t.Helper()
	l := w.watches()
	for name, ws := range map[string][]model.Watch{model.WatchWatching: l.Watching, model.WatchPending: l.Pending, model.WatchUndeliverable: l.Undeliverable} {
		for _, x := range ws {
			if x.ID == id {
				return x, name
			}
		}
	}
	return model.Watch{}, ""
}

// waitIn waits until a watch is listed in list and returns it.
func (w *wHost) waitIn(id, list string) model.Watch {
	w.t.Helper()
	var got model.Watch
	wEventually(w.t, "watch "+id+" in "+list, func() bool {
		var in string
		got, in = w.find(id)
		return in == list
	})
	return got
}

// waitPending waits until a delivery of the watch was tried and it is pending again (not in
// the middle of an attempt), and returns it.
func (w *wHost) waitPending(id string) model.Watch {
	w.t.Helper()
	var got model.Watch
	wEventually(w.t, "a finished delivery attempt of "+id, func() bool {
		got, _ = w.find(id)
		return got.State == model.WatchPending && got.Attempts >= 1
	})
	return got
}

// settled waits until a delivery of the watch was tried and it is no longer in the middle of
// an attempt, and returns it with its list.
func (w *wHost) settled(id string) (model.Watch, string) {
	w.t.Helper()
	var got model.Watch
	var in string
	wEventually(w.t, "a finished delivery attempt of "+id, func() bool {
		got, in = w.find(id)
		return got.Attempts >= 1 && (got.State == model.WatchPending || got.State == model.WatchUndeliverable)
	})
	return got, in
}

// storedWatches counts the watch records in the store.
func (w *wHost) storedWatches() int {
	w.t.Helper()
	n := 0
	if err := w.Store().Watches(func(model.Watch) error { n++; return nil }); err != nil {
		w.t.Fatal(err)
	}
	return n
}

func (w *wHost) events(client, after string, limit int) api.ClientEventsResult {
	w.t.Helper()
	return call[api.ClientEventsResult](w.t, w.client(client), api.MethodClientEvents, api.ClientEventsParams{After: after, Limit: limit})
}

// event waits for the client event of a watch.
func (w *wHost) event(client, watchID string) model.ClientEvent {
	w.t.Helper()
	var got model.ClientEvent
	wEventually(w.t, "client event of watch "+watchID, func() bool {
		for _, ev := range w.events(client, "", 100).Events {
			if ev.Watch == watchID {
				got = ev
				return true
			}
		}
		return false
	})
	return got
}

func (w *wHost) transcriptPath(id string) string {
	return filepath.Join(w.transcriptDir(), id+".jsonl")
}

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

// Scenario: S000-29 (S001-02)
func TestWatchS000_29_AlreadyTerminalRegistersAndSendsNothing(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	r := w.idle()
	done := w.idle()
	failed := w.startThread("wgate", "this one fails @fail", "")
	w.waitStopped(failed.id)
	cancelled := w.gated("")
	call[api.ThreadCancelResult](t, w.rt(), api.MethodThreadCancel, api.ThreadCancelParams{Thread: cancelled.id})
	w.waitStopped(cancelled.id)

	for _, c := range []struct {
		th     wThread
		status string
		notify string
		caller *api.Client
	}{
		{done, model.TurnCompleted, r.id, w.rt()},
		{failed, model.TurnFailed, r.id, w.rt()},
		{cancelled, model.TurnInterrupted, "", w.client("bot")},
	} {
		res := w.watch(c.caller, api.ThreadWatchParams{Thread: c.th.id, Notify: c.notify})
		if res.State != "alreadyTerminal" || res.Status != c.status || res.SourceTurn != c.th.turn || res.Watch != nil {
			t.Fatalf("watch on a %s thread: %+v", c.status, res)
		}
	}
	w.advance(time.Hour)
	w.step()
	if l := w.watches(); len(l.Watching)+len(l.Pending)+len(l.Undeliverable) != 0 {
		t.Fatalf("watches after alreadyTerminal: %+v", l)
	}
	if n := w.storedWatches(); n != 0 {
		t.Fatalf("%d watch records stored", n)
	}
	if msgs := w.userMessages(r.id); len(msgs) != 1 {
		t.Fatalf("the recipient got a turn: %q", msgs)
	}
	if evs := w.events("bot", "", 100).Events; len(evs) != 0 {
		t.Fatalf("the client got events: %+v", evs)
	}
}

// Scenario: S000-30 (S001-03)
func TestWatchS000_30_RecipientRules(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	r1, r2 := w.idle(), w.idle()
	rt, bot := w.rt(), w.client("bot")

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

// An agent whose token is bound to a thread (a native tool shell, which has no
// CODEXHOST_THREAD_ID) is notified itself when it names no one: its token says exactly which
// thread it is, so nothing is guessed, and a CODEXHOST_THREAD_ID naming another thread does
// not change who it is.
// Scenario: S000-30
func TestWatchRecipientOfAnAgentIsItsTokensThread(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	r1, r2 := w.idle(), w.idle()
	agent := w.shared(w.agents.ForThread(model.ThreadID(r1.id)))
	if got := w.watching(agent, api.ThreadWatchParams{Thread: th.id}); got.Notify != r1.id {
		t.Fatalf("an agent of %s watching with no --notify: notify %q", r1.id, got.Notify)
	}
	if res := w.watch(agent, api.ThreadWatchParams{Thread: th.id, Caller: api.CallerHint{EnvThread: r2.id}}); res.Watch == nil || res.Watch.Notify != r1.id || !res.Existing {
		t.Fatalf("an agent of %s claiming CODEXHOST_THREAD_ID %s: %+v, want its first watch", r1.id, r2.id, res)
	}
}

// Scenario: S000-31 (S001-04) — completed, failed, interrupted and timedOut, each naming its
// source turn. unreadable and notFound need a thread this runtime has not loaded yet: see
// TestWatchS000_42_ReadFailuresAfterRestart.
func TestWatchS000_31_ResultsNameTheirSourceTurn(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	bot := w.client("bot")
	completes, fails, cancelled, slow := w.gated(""), w.gated("@fail"), w.gated(""), w.gated("")
	ids := map[string]string{}
	for _, th := range []wThread{completes, fails, cancelled} {
		ids[th.id] = w.watching(bot, api.ThreadWatchParams{Thread: th.id}).ID
	}
	ids[slow.id] = w.watching(bot, api.ThreadWatchParams{Thread: slow.id, TimeoutMs: 1000}).ID

	w.openGate(completes)
	w.openGate(fails)
	call[api.ThreadCancelResult](t, w.rt(), api.MethodThreadCancel, api.ThreadCancelParams{Thread: cancelled.id})
	for th, result := range map[wThread]string{completes: model.ResultCompleted, fails: model.ResultFailed, cancelled: model.ResultInterrupted} {
		ev := w.event("bot", ids[th.id])
		if ev.Result != result || ev.Turn != th.turn || ev.Thread != model.ThreadID(th.id) || ev.Link != "codex://threads/"+th.id {
			t.Fatalf("%s: event %+v, want result %s of turn %s", th.id, ev, result, th.turn)
		}
	}

	// The deadline passes while the thread still runs.
	w.step()
	if _, in := w.find(ids[slow.id]); in != model.WatchWatching {
		t.Fatalf("before the deadline the watch is %q", in)
	}
	w.advance(time.Second)
	ev := w.event("bot", ids[slow.id])
	if ev.Result != model.ResultTimedOut || ev.Turn != slow.turn {
		t.Fatalf("timed out: %+v", ev)
	}
	if !w.running(slow.id) {
		t.Fatal("the timed-out thread is not running")
	}
}

// Scenario: S000-32 (S001-05) — turn/start on the running native turn steers it (same turn
// id); the watch keeps watching and reports the turn's real end once.
func TestWatchS000_32_SteerIsNotAStop(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{native: true})
	w.fake.Enqueue(fakemodel.Slow(50*time.Millisecond, time.Minute))
	ctx := context.Background()
	res := call[api.DelegateStartResult](t, w.client("ops"), api.MethodDelegateStart, api.DelegateStartParams{Harness: model.NativeHarness, Task: "steer me", Cwd: t.TempDir()})
	id := res.Thread.ID
	if _, err := w.fake.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	turn := w.read(id).Thread.LastTurn
	if turn == nil || turn.Status != model.TurnInProgress {
		t.Fatalf("native turn: %+v", turn)
	}
	reg := w.watching(w.client("bot"), api.ThreadWatchParams{Thread: id})

	// Scenario: S000-30 — one native thread has an active turn (a caller inference would pick
	// it); a runtime caller without --notify or CODEXHOST_THREAD_ID still fails.
	if a := w.native.Active(); !slices.Equal(a, []model.ThreadID{model.ThreadID(id)}) {
		t.Fatalf("active native threads: %v", a)
	}
	other := w.gated("")
	wCallErr(t, w.rt(), api.MethodThreadWatch, api.ThreadWatchParams{Thread: other.id}, model.CodeInvalidArgument)
	w.openGate(other)

	c, err := w.native.Client(ctx)
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
	for _, r := range w.fake.Requests() {
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

// Scenario: S000-33 (S001-06)
func TestWatchS000_33_DedupeKeepsDeadlineAndNextStopGetsANewWatch(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, th := w.gated(""), w.gated("")
	rt := w.rt()
	first := w.watching(rt, api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id, TimeoutMs: 10 * 60 * 1000})
	w.advance(time.Minute)
	again := w.watch(rt, api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id, TimeoutMs: 20 * 60 * 1000})
	if !again.Existing || again.Watch.ID != first.ID || !again.Watch.Deadline.Equal(first.Deadline) || !first.Deadline.Equal(wT0.Add(10*time.Minute)) {
		t.Fatalf("second registration while watching: %+v (first %+v)", again, first)
	}

	// It stops while the recipient is busy: the notification waits.
	firstTurn := th.turn
	w.openGate(th)
	w.waitStopped(th.id)
	w.waitPending(first.ID)
	// It runs again: a registration now watches for the next stop.
	w.rerun(&th)
	next := w.watch(rt, api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	if next.State != model.WatchWatching || next.Existing || next.Watch.ID == first.ID {
		t.Fatalf("registration for the next stop: %+v", next)
	}
	if p, in := w.find(first.ID); in != model.WatchPending || p.SourceTurn != firstTurn {
		t.Fatalf("the pending notification after the new registration: %q %+v", in, p)
	}
	w.openGate(th)
	w.waitPending(next.Watch.ID)
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("busy recipient got a turn: %q", got)
	}

	// Both are delivered, in one turn, once the recipient is free.
	w.openGate(rcpt)
	msgs := w.waitUserMessages(rcpt.id, 2)
	if !strings.Contains(msgs[1], firstTurn) || !strings.Contains(msgs[1], th.turn) {
		t.Fatalf("merged notification %q lacks turn %s or %s", msgs[1], firstTurn, th.turn)
	}
	if l := w.watches(); len(l.Watching)+len(l.Pending)+len(l.Undeliverable) != 0 {
		t.Fatalf("watches after delivery: %+v", l)
	}
}

// Scenario: S000-34 (S001-07)
func TestWatchS000_34_BusyRecipientPendingRetriedAndMerged(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, a, b := w.gated(""), w.gated(""), w.gated("")
	rt := w.rt()
	wa := w.watching(rt, api.ThreadWatchParams{Thread: a.id, Notify: rcpt.id})
	wb := w.watching(rt, api.ThreadWatchParams{Thread: b.id, Notify: rcpt.id})

	w.openGate(a)
	p := w.waitPending(wa.ID)
	if p.Attempts != 1 || p.Result != model.ResultCompleted || !p.NextAttempt.Equal(wT0.Add(watch.BusyRetry)) {
		t.Fatalf("after THREAD_BUSY: %+v", p)
	}
	// `thread send` itself refuses rather than queue.
	wCallErr(t, rt, api.MethodThreadSend, api.ThreadSendParams{Thread: rcpt.id, Message: "queued?"}, model.CodeThreadBusy)

	w.openGate(b)
	w.waitPending(wb.ID)
	// BusyRetry passes with the recipient still busy: retried, still pending, nothing sent.
	w.advance(watch.BusyRetry)
	wEventually(t, "the retry after BusyRetry", func() bool {
		p, _ = w.find(wa.ID)
		return p.Attempts >= 2 && p.State == model.WatchPending
	})
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("busy recipient got turns: %q", got)
	}

	// Its stop triggers one delivery of both.
	w.openGate(rcpt)
	msgs := w.waitUserMessages(rcpt.id, 2)
	for _, id := range []string{a.id, b.id} {
		if !strings.Contains(msgs[1], "codex://threads/"+id) {
			t.Fatalf("merged notification %q lacks %s", msgs[1], id)
		}
	}
	if strings.Contains(msgs[1], "queued?") {
		t.Fatal("the refused message was queued")
	}
}

// Scenario: S000-35 (S001-08) — the recipient's working directory is missing, so its command
// cannot start: no turn started, and the notification is retried until it goes through.
func TestWatchS000_35_NotStartedDeliveryIsRetried(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	// Long after the runtime started: no restart grace can be what keeps it pending.
	w.advance(model.RestartGrace + time.Minute)
	dir := filepath.Join(w.gates, "rcpt-cwd")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	rcpt := w.startThread("wgate", "recipient task", dir)
	w.waitStopped(rcpt.id)
	th := w.gated("")
	reg := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})

	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	w.openGate(th)
	p, in := w.settled(reg.ID)
	if in != model.WatchPending || p.Reason != "" || !p.NextAttempt.After(w.clock.Now()) {
		t.Fatalf("after a delivery that could not start: %q %+v", in, p)
	}
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("a turn was recorded: %q", got)
	}

	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.advance(p.NextAttempt.Sub(w.clock.Now()))
	msgs := w.waitUserMessages(rcpt.id, 2)
	if !strings.Contains(msgs[1], th.id) {
		t.Fatalf("notification %q", msgs[1])
	}
}

// Scenario: S000-37 (S001-10), S000-35 — a missing recipient is given up at once; `thread
// watches` keeps the latest 50 undeliverable records, also across a restart.
func TestWatchS000_37_GoneRecipientsAndTheLatest50(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	var rcpts []string
	for range 55 {
		rcpts = append(rcpts, w.startThread("wgate", w.nextName("short-lived recipient "), "").id)
	}
	for _, id := range rcpts {
		w.waitStopped(id)
	}
	// The recipients' conversations are deleted while the runtime is down.
	w.restart(func() {
		for _, id := range rcpts {
			if err := os.Remove(w.transcriptPath(id)); err != nil {
				t.Fatal(err)
			}
		}
	})
	rt := w.rt()
	older, newer := w.gated(""), w.gated("")
	for _, id := range rcpts[:5] {
		w.watching(rt, api.ThreadWatchParams{Thread: older.id, Notify: id})
	}
	w.openGate(older)
	wEventually(t, "5 undeliverable", func() bool { return len(w.watches().Undeliverable) == 5 })

	w.advance(time.Second)
	for _, id := range rcpts[5:] {
		w.watching(rt, api.ThreadWatchParams{Thread: newer.id, Notify: id})
	}
	w.openGate(newer)
	check := func(when string) {
		t.Helper()
		l := w.watches()
		if len(l.Undeliverable) != model.UndeliverableKept || len(l.Watching)+len(l.Pending) != 0 {
			t.Fatalf("%s: %d undeliverable, %d watching, %d pending", when, len(l.Undeliverable), len(l.Watching), len(l.Pending))
		}
		var notified []string
		for _, u := range l.Undeliverable {
			if u.Thread != model.ThreadID(newer.id) || u.State != model.WatchUndeliverable || !strings.Contains(u.Reason, "no longer exists") || u.Result != model.ResultCompleted {
				t.Fatalf("%s: kept %+v", when, u)
			}
			notified = append(notified, u.Notify)
		}
		slices.Sort(notified)
		want := slices.Clone(rcpts[5:])
		slices.Sort(want)
		if !slices.Equal(notified, want) {
			t.Fatalf("%s: the kept records are not the latest 50", when)
		}
	}
	wEventually(t, "the newer 50 undeliverable", func() bool {
		l := w.watches()
		return len(l.Pending)+len(l.Watching) == 0 && len(l.Undeliverable) == model.UndeliverableKept && l.Undeliverable[len(l.Undeliverable)-1].Thread == model.ThreadID(newer.id)
	})
	check("before the restart")
	w.restart(nil)
	check("after the restart")
	if n := w.storedWatches(); n != model.UndeliverableKept {
		t.Fatalf("%d watch records stored, want %d", n, model.UndeliverableKept)
	}
}

// Scenario: S000-37 (S001-10), S000-34 — a recipient busy for more than 6 hours after the
// stop: retried meanwhile, then undeliverable with the reason; never delivered while busy.
func TestWatchS000_37_BusyForSixHoursIsUndeliverable(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, th := w.gated(""), w.gated("")
	reg := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	w.openGate(th)
	w.waitPending(reg.ID)
	w.advance(model.DeliveryWindow)
	wEventually(t, "a retry at 6 h", func() bool { p, _ := w.find(reg.ID); return p.Attempts >= 2 && p.State == model.WatchPending })
	// The next retry finds the window over.
	w.advance(watch.BusyRetry)
	u := w.waitIn(reg.ID, model.WatchUndeliverable)
	if !strings.Contains(u.Reason, "6 hours") || u.Result != model.ResultCompleted {
		t.Fatalf("undeliverable %+v", u)
	}
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("busy recipient got a turn: %q", got)
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
	call[api.ThreadCancelResult](t, rt, api.MethodThreadCancel, api.ThreadCancelParams{Thread: rcpt.id})
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
	bot := w.client("bot")
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
	rt, bot := w.rt(), w.client("bot")
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
	res := call[api.DelegateStartResult](t, w.rt(), api.MethodDelegateStart, api.DelegateStartParams{
		Caller: api.CallerHint{EnvThread: parent.id}, Harness: "wgate", Task: "child @gate:" + gate1 + " ", Cwd: w.gates, Watch: true})
	if res.Watch == nil || res.Watch.State != model.WatchWatching || res.Watch.Watch.Notify != parent.id || res.Watch.Watch.Thread != model.ThreadID(res.Thread.ID) {
		t.Fatalf("delegate --watch from a thread: %+v", res.Watch)
	}
	byClient := call[api.DelegateStartResult](t, w.client("bot"), api.MethodDelegateStart, api.DelegateStartParams{
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
