package runtime

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/threads"
)

// The one watch test left in this package connects with an agent's token (Host.agents), which
// only the root package reaches; the other watch tests are in runtime/watch (package
// watch_test), on the same harnesses and clock.

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
	w.testHost = newTestHost(t, hostOptions{harnesses: o.harnesses,
		clients: []string{"ops", "bot", "other"}, now: w.clock.Now})
	return w
}

// rt connects as a process the host started.
func (w *wHost) rt() *api.Client { return w.runtimeClient() }

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
