package watch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/threads"
)

// The watch tests drive a Host through its runtime API with an injected clock. Engine rules
// that depend on time (deadlines, BusyRetry, backoff, the 60 s, 5 min and 6 h rules) are
// reached by moving the clock, never by sleeping.
//
// The engine is made to evaluate at once after the clock moved (advance, step) through
// the runtime's Watches. The one test that connects with an agent's token needs the Host's
// unexported token set, so it stays in the root package (runtime/watch_test.go).

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

// wHost is a hosttest.Host on the watch harnesses and an injected clock, with clients "ops"
// (starts threads), "bot" and "other".
type wHost struct {
	*hosttest.Host
	gates string
	clock *hosttest.FakeClock
	seq   atomic.Int64
}

func wNewHost(t *testing.T, o wHostOptions) *wHost {
	t.Helper()
	w := &wHost{gates: t.TempDir(), clock: hosttest.NewFakeClock(wT0)}
	if o.harnesses == nil {
		o.harnesses = wHarnesses()
	}
	w.Host = hosttest.New(t, hosttest.Options{Codex: o.native, FakeOpts: o.fakeOpts, Harnesses: o.harnesses,
		Clients: []string{"ops", "bot", "other"}, Now: w.clock.Now})
	return w
}

// restart closes the runtime and opens a new one on the same home; downtime runs in between,
// where a test may change files, the config and the clock.
func (w *wHost) restart(downtime func()) {
	w.T.Helper()
	w.RestartAfter(downtime)
}

// setHarness changes config.toml; harnesses are read when the runtime starts.
func (w *wHost) setHarness(name string, hc *config.Harness) {
	w.T.Helper()
	if hc == nil {
		delete(w.Cfg.Harnesses, name)
	} else {
		w.Cfg.Harnesses[name] = *hc
	}
	if err := config.Save(w.Home, w.Cfg); err != nil {
		w.T.Fatal(err)
	}
}

// rt connects as a process the host started.
func (w *wHost) rt() *api.Client { return w.RuntimeClient() }

// advance moves the clock and makes the engine evaluate.
func (w *wHost) advance(d time.Duration) {
	w.clock.Advance(d)
	w.Watches().Kick()
}

// step runs one engine pass to its end: after it, everything due at the current time is
// decided, so a test can assert what has not happened yet.
func (w *wHost) step() { w.Watches().Step(context.Background()) }

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
	hosttest.PollUntil(t, what, wWait, 5*time.Millisecond, cond)
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
	w.T.Helper()
	if cwd == "" {
		cwd = w.gates
	}
	res := hosttest.Call[api.DelegateStartResult](w.T, w.Client("ops"), api.MethodDelegateStart,
		api.DelegateStartParams{Harness: harness, Task: text, Cwd: cwd})
	th := wThread{id: res.Thread.ID}
	if res.Thread.LastTurn != nil {
		th.turn = res.Thread.LastTurn.ID
	}
	return th
}

// gated starts a wgate thread whose turn runs until openGate.
func (w *wHost) gated(extra string) wThread {
	w.T.Helper()
	gate := filepath.Join(w.gates, w.nextName("g"))
	th := w.startThread("wgate", w.nextName("task ")+" @gate:"+gate+" "+extra, "")
	th.gate = gate
	if th.turn == "" || !w.running(th.id) {
		w.T.Fatalf("gated thread %s is not running", th.id)
	}
	return th
}

// idle starts a wgate thread whose turn completes at once and waits for it to end.
func (w *wHost) idle() wThread {
	w.T.Helper()
	th := w.startThread("wgate", w.nextName("quick task "), "")
	w.waitStopped(th.id)
	return th
}

// turnless starts a thread that never got a turn: its harness cannot start the command.
func (w *wHost) turnless() string { return w.turnlessOn("wbroken") }

func (w *wHost) turnlessOn(harness string) string {
	w.T.Helper()
	err := w.Client("ops").Call(context.Background(), api.MethodDelegateStart,
		api.DelegateStartParams{Harness: harness, Task: w.nextName("never runs "), Cwd: w.gates}, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeDelegationFailed {
		w.T.Fatalf("start on wbroken: %v", err)
	}
	id, _ := me.Details["thread"].(string)
	if id == "" {
		w.T.Fatalf("no thread in %+v", me)
	}
	return id
}

func (w *wHost) openGate(th wThread) {
	w.T.Helper()
	if err := os.WriteFile(th.gate, nil, 0o600); err != nil {
		w.T.Fatal(err)
	}
}

// rerun starts another gated turn on an idle wgate thread.
func (w *wHost) rerun(th *wThread) {
	w.T.Helper()
	th.gate = filepath.Join(w.gates, w.nextName("g"))
	res := hosttest.Call[api.ThreadSendResult](w.T, w.rt(), api.MethodThreadSend, api.ThreadSendParams{Thread: th.id, Message: "again @gate:" + th.gate + " "})
	th.turn = res.TurnID
}

func (w *wHost) read(id string) api.ThreadReadResult {
	w.T.Helper()
	return hosttest.Call[api.ThreadReadResult](w.T, w.rt(), api.MethodThreadRead, api.ThreadReadParams{Thread: id})
}

func (w *wHost) running(id string) bool { return threads.Running(w.read(id).Thread) }

func (w *wHost) waitStopped(id string) api.ThreadReadResult {
	w.T.Helper()
	res := hosttest.Call[api.ThreadReadResult](w.T, w.rt(), api.MethodThreadWait, api.ThreadWaitParams{
		ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(int(wWait / time.Millisecond))})
	if res.TimedOut == nil || *res.TimedOut {
		w.T.Fatalf("thread %s still running", id)
	}
	return res
}

// userMessages are the user messages of a thread, oldest first.
func (w *wHost) userMessages(id string) []string {
	w.T.Helper()
	res := hosttest.Call[api.ThreadReadResult](w.T, w.rt(), api.MethodThreadRead, api.ThreadReadParams{Thread: id, View: model.ViewMessages, Limit: 100})
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
	w.T.Helper()
	var got []string
	wEventually(w.T, fmt.Sprintf("%d user messages in %s", n, id), func() bool {
		got = w.userMessages(id)
		return len(got) >= n
	})
	w.waitStopped(id)
	if got = w.userMessages(id); len(got) != n {
		w.T.Fatalf("thread %s has %d user messages, want %d: %q", id, len(got), n, got)
	}
	return got
}

func (w *wHost) watch(c *api.Client, p api.ThreadWatchParams) api.WatchResult {
	w.T.Helper()
	return hosttest.Call[api.WatchResult](w.T, c, api.MethodThreadWatch, p)
}

// watching registers a watch that must come back watching.
func (w *wHost) watching(c *api.Client, p api.ThreadWatchParams) model.Watch {
	w.T.Helper()
	res := w.watch(c, p)
	if res.State != model.WatchWatching || res.Watch == nil {
		w.T.Fatalf("watch %+v: %+v", p, res)
	}
	return *res.Watch
}

func (w *wHost) watches() api.WatchesResult {
	w.T.Helper()
	return hosttest.Call[api.WatchesResult](w.T, w.rt(), api.MethodThreadWatches, nil)
}

// find returns a listed watch and its list ("" when not listed).
func (w *wHost) find(id string) (model.Watch, string) {
	w.T.Helper()
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
	w.T.Helper()
	var got model.Watch
	wEventually(w.T, "watch "+id+" in "+list, func() bool {
		var in string
		got, in = w.find(id)
		return in == list
	})
	return got
}

// waitPending waits until a delivery of the watch was tried and it is pending again (not in
// the middle of an attempt), and returns it.
func (w *wHost) waitPending(id string) model.Watch {
	w.T.Helper()
	var got model.Watch
	wEventually(w.T, "a finished delivery attempt of "+id, func() bool {
		got, _ = w.find(id)
		return got.State == model.WatchPending && got.Attempts >= 1
	})
	return got
}

// settled waits until a delivery of the watch was tried and it is no longer in the middle of
// an attempt, and returns it with its list.
func (w *wHost) settled(id string) (model.Watch, string) {
	w.T.Helper()
	var got model.Watch
	var in string
	wEventually(w.T, "a finished delivery attempt of "+id, func() bool {
		got, in = w.find(id)
		return got.Attempts >= 1 && (got.State == model.WatchPending || got.State == model.WatchUndeliverable)
	})
	return got, in
}

// storedWatches counts the watch records in the store.
func (w *wHost) storedWatches() int {
	w.T.Helper()
	n := 0
	if err := w.Store().Watches(func(model.Watch) error { n++; return nil }); err != nil {
		w.T.Fatal(err)
	}
	return n
}

func (w *wHost) events(client, after string, limit int) api.ClientEventsResult {
	w.T.Helper()
	return hosttest.Call[api.ClientEventsResult](w.T, w.Client(client), api.MethodClientEvents, api.ClientEventsParams{After: after, Limit: limit})
}

// event waits for the client event of a watch.
func (w *wHost) event(client, watchID string) model.ClientEvent {
	w.T.Helper()
	var got model.ClientEvent
	wEventually(w.T, "client event of watch "+watchID, func() bool {
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
	return filepath.Join(w.TranscriptDir(), id+".jsonl")
}
