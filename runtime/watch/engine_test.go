package watch

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// These tests drive the engine with Step on a real store, a fake clock and scripted readers
// and senders, for the rules a Host cannot reach on demand: a read that comes back completed
// after a restart, a send whose outcome is unknown, a thread still running across downtime.

var t0 = time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)

type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// testReader answers reads per thread with a state or an error.
type testReader struct {
	mu     sync.Mutex
	states map[model.ThreadID]ThreadState
	errs   map[model.ThreadID]error
	reads  atomic.Int64
}

func (r *testReader) set(id model.ThreadID, st ThreadState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.errs, id)
	r.states[id] = st
}

func (r *testReader) fail(id model.ThreadID, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[id] = err
}

func (r *testReader) read(_ context.Context, id model.ThreadID) (ThreadState, error) {
	r.reads.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.errs[id]; err != nil {
		return ThreadState{}, err
	}
	st, ok := r.states[id]
	if !ok {
		return ThreadState{}, model.Errorf(model.CodeThreadNotFound, "check the id", "no thread %s", id)
	}
	return st, nil
}

type sent struct {
	recipient model.ThreadID
	text      string
}

// testSender records deliveries and fails them with the recipient's error, else the queued
// errors, else def.
type testSender struct {
	mu    sync.Mutex
	calls []sent
	to    map[model.ThreadID]error
	queue []error
	def   error
}

func (s *testSender) send(_ context.Context, recipient model.ThreadID, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, sent{recipient, text})
	if err, ok := s.to[recipient]; ok {
		return err
	}
	if len(s.queue) > 0 {
		err := s.queue[0]
		s.queue = s.queue[1:]
		return err
	}
	return s.def
}

func (s *testSender) failWith(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, errs...)
}

func (s *testSender) failTo(recipient string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.to == nil {
		s.to = map[model.ThreadID]error{}
	}
	s.to[model.ThreadID(recipient)] = err
}

func (s *testSender) sent() []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sent(nil), s.calls...)
}

type testEnv struct {
	t      *testing.T
	st     *store.Store
	clock  *testClock
	reader *testReader
	sender *testSender
	e      *Engine
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "home"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	v := &testEnv{t: t, st: st, clock: &testClock{now: t0},
		reader: &testReader{states: map[model.ThreadID]ThreadState{}, errs: map[model.ThreadID]error{}},
		sender: &testSender{}}
	v.open()
	return v
}

// open starts an engine on the store, as a runtime (re)start does; the previous one is dropped
// without any further step, like a runtime that stopped.
func (v *testEnv) open() {
	v.t.Helper()
	e, err := Open(Options{Store: v.st, Read: v.reader.read, Send: v.sender.send, Now: v.clock.Now})
	if err != nil {
		v.t.Fatal(err)
	}
	v.e = e
}

func (v *testEnv) at(d time.Duration) { v.clock.Set(t0.Add(d)) }

func (v *testEnv) step() { v.e.Step(context.Background()) }

func (v *testEnv) register(thread model.ThreadID, notify string, timeout time.Duration) model.Watch {
	v.t.Helper()
	res, err := v.e.Register(context.Background(), thread, notify, timeout)
	if err != nil || res.State != model.WatchWatching || res.Watch == nil {
		v.t.Fatalf("register %s: %+v %v", thread, res, err)
	}
	return *res.Watch
}

// find returns a watch of List and the list it is in ("" when in none).
func (v *testEnv) find(id string) (model.Watch, string) {
	l := v.e.List()
	for name, ws := range map[string][]model.Watch{model.WatchWatching: l.Watching, model.WatchPending: l.Pending, model.WatchUndeliverable: l.Undeliverable} {
		for _, w := range ws {
			if w.ID == id {
				return w, name
			}
		}
	}
	return model.Watch{}, ""
}

func (v *testEnv) want(id, list, result string) model.Watch {
	v.t.Helper()
	w, in := v.find(id)
	if in != list || w.Result != result {
		v.t.Fatalf("watch %s is in %q with result %q (%+v), want %q with %q", id, in, w.Result, w, list, result)
	}
	return w
}

func newID() model.ThreadID { return model.ThreadID(uuid.NewString()) }

func running(turn string) ThreadState {
	return ThreadState{Running: true, TurnID: turn, TurnStatus: model.TurnInProgress}
}

func stopped(turn, status string) ThreadState {
	return ThreadState{TurnID: turn, TurnStatus: status}
}

// errBusy is a recipient's THREAD_BUSY: with it as the default answer notifications stay
// pending, so a test can read their results from List.
var errBusy = model.Errorf(model.CodeThreadBusy, "wait", "thread is running a turn")

// Scenario: S000-31 (S001-04) — a watch becomes unreadable 60 s after its reads began to
// fail, not earlier; a confirmed missing thread is notFound.
func TestS000_31_UnreadableAfter60sOfFailedReadsNotFoundWhenGone(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	v.sender.def = errBusy
	w, gone := newID(), newID()
	v.reader.set(w, running("turn-1"))
	v.reader.set(gone, running("turn-g"))
	a := v.register(w, string(newID()), time.Hour)
	b := v.register(gone, string(newID()), time.Hour)
	v.step()

	v.reader.fail(w, errors.New("transcript: line 2: invalid character"))
	v.at(10 * time.Second)
	v.e.OnEvent(w, model.ThreadActive, "")
	v.step() // the first failed read
	v.at(10*time.Second + 59*time.Second)
	v.step()
	v.want(a.ID, model.WatchWatching, "")
	v.at(10*time.Second + 60*time.Second)
	v.step()
	got, _ := v.find(a.ID)
	if got.Result != model.ResultUnreadable || !strings.Contains(got.Reason, "60 s") {
		t.Fatalf("after 60 s of failed reads: %+v", got)
	}

	// A confirmed missing thread is notFound at the first read; it never passed for unreadable.
	v.reader.fail(gone, model.Errorf(model.CodeThreadNotFound, "check", "no thread %s", gone))
	v.e.OnEvent(gone, model.ThreadNotLoaded, "")
	v.step()
	if got, _ := v.find(b.ID); got.Result != model.ResultNotFound || got.SourceTurn != "" {
		t.Fatalf("gone thread: %+v", got)
	}
}

// Scenario: S000-34 (S001-07) — a busy recipient is retried after BusyRetry; a busy answer
// is never taken for a delivery.
func TestS000_34_BusyRecipientRetriedAfterBusyRetry(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	w, r := newID(), newID()
	v.reader.set(w, running("turn-1"))
	reg := v.register(w, string(r), time.Hour)
	v.sender.failWith(errBusy)
	v.reader.set(w, stopped("turn-1", model.TurnCompleted))
	v.e.OnEvent(w, model.ThreadIdle, model.TurnCompleted)
	v.step()
	p := v.want(reg.ID, model.WatchPending, model.ResultCompleted)
	if p.Attempts != 1 || !p.NextAttempt.Equal(t0.Add(BusyRetry)) {
		t.Fatalf("after THREAD_BUSY: %+v", p)
	}
	v.at(BusyRetry - time.Second)
	v.step()
	if n := len(v.sender.sent()); n != 1 {
		t.Fatalf("%d sends before BusyRetry passed, want 1", n)
	}
	v.at(BusyRetry)
	v.step()
	if calls := v.sender.sent(); len(calls) != 2 || calls[1].recipient != r {
		t.Fatalf("sends after BusyRetry: %+v", calls)
	}
	if _, in := v.find(reg.ID); in != "" {
		t.Fatalf("delivered watch still listed in %s", in)
	}
}

// Scenario: S000-35 (S001-08) — failures that provably started no turn are retried with
// backoff inside the window (a command that cannot start, an explicit refusal by the App
// Server); a missing or read-only recipient is given up at once.
func TestS000_35_NotStartedRetriedGoneOrReadOnlyGivenUp(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	notStarted := harness.NotStarted(model.Errorf(model.CodeFailedPrecondition, "check the command", "harness x cannot start its command: no such file"))
	refused := harness.NotStarted(model.Errorf(model.CodeInternal, "see the log", "turn/start: invalid request"))
	gone := harness.NotStarted(model.Errorf(model.CodeThreadNotFound, "check", "no thread"))
	readOnly := ReadOnly(harness.NotStarted(model.Errorf(model.CodeFailedPrecondition, "close it there", "thread is open in another Codex process")))

	w := newID()
	v.reader.set(w, running("turn-1"))
	retry := v.register(w, string(newID()), time.Hour)
	lost := v.register(w, string(newID()), time.Hour)
	held := v.register(w, string(newID()), time.Hour)
	v.sender.failTo(retry.Notify, notStarted)
	v.sender.failTo(lost.Notify, gone)
	v.sender.failTo(held.Notify, readOnly)
	v.reader.set(w, stopped("turn-1", model.TurnFailed))
	v.e.OnEvent(w, model.ThreadIdle, model.TurnFailed)
	v.step()

	if got := v.want(lost.ID, model.WatchUndeliverable, model.ResultFailed); !strings.Contains(got.Reason, "no longer exists") {
		t.Fatalf("gone recipient: %+v", got)
	}
	if got := v.want(held.ID, model.WatchUndeliverable, model.ResultFailed); !strings.Contains(got.Reason, "read-only") {
		t.Fatalf("read-only recipient: %+v", got)
	}
	p := v.want(retry.ID, model.WatchPending, model.ResultFailed)
	if p.Attempts != 1 || !p.NextAttempt.Equal(t0.Add(5*time.Second)) || p.Reason != "" {
		t.Fatalf("not-started failure: %+v", p)
	}
	// The App Server refusing the turn is retried too, with a longer backoff.
	v.sender.failTo(retry.Notify, refused)
	v.at(5 * time.Second)
	v.step()
	if p := v.want(retry.ID, model.WatchPending, model.ResultFailed); p.Attempts != 2 || !p.NextAttempt.Equal(t0.Add(15*time.Second)) {
		t.Fatalf("after a refused turn/start: %+v", p)
	}
	v.sender.failTo(retry.Notify, nil)
	v.at(15 * time.Second)
	v.step()
	if _, in := v.find(retry.ID); in != "" {
		t.Fatalf("retried notification still in %s", in)
	}
	n := 0
	for _, c := range v.sender.sent() {
		if string(c.recipient) == retry.Notify {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d attempts to the retried recipient, want 3", n)
	}
}

// Scenario: S000-36 (S001-09) — a failure that cannot prove no turn started is not retried.
func TestS000_36_UnknownOutcomeIsNotRetried(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	w, r := newID(), newID()
	v.reader.set(w, running("turn-1"))
	reg := v.register(w, string(r), time.Hour)
	v.sender.def = errors.New("harness did not confirm the start in time")
	v.reader.set(w, stopped("turn-1", model.TurnCompleted))
	v.e.OnEvent(w, model.ThreadIdle, model.TurnCompleted)
	v.step()
	got := v.want(reg.ID, model.WatchUndeliverable, model.ResultCompleted)
	if !strings.Contains(got.Reason, "outcome unknown") || !strings.Contains(got.Reason, "confirm the start") {
		t.Fatalf("reason %q", got.Reason)
	}
	for _, d := range []time.Duration{time.Minute, time.Hour, 5 * time.Hour} {
		v.at(d)
		v.e.OnEvent(r, model.ThreadIdle, model.TurnCompleted)
		v.step()
	}
	if n := len(v.sender.sent()); n != 1 {
		t.Fatalf("%d sends, want exactly 1", n)
	}
}
