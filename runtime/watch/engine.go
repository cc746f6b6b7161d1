// Package watch is the durable watch engine: one-shot notifications that a thread stopped,
// kept in the store so that neither a restart nor a crash loses them.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/store"
)

// Engine timing. Observation is driven by events; these bound the fallbacks.
const (
	// ReconcileEvery re-reads each observed thread at this low rate, catching anything no
	// event reported (a thread run by another process sends none).
	ReconcileEvery = 60 * time.Second
	// reconcileSlack lets the wake-up for one reconciliation read also take every other read
	// due within it: threads watched from different moments would otherwise wake the engine
	// one by one, each time for a pass over every watch (thousands of passes a minute at 10,000
	// watches).
	reconcileSlack = ReconcileEvery / 6
	// OwnedReconcileEvery is the rate for threads this runtime runs itself: each of their
	// changes reaches the engine as an event, so the read is only a safety net.
	OwnedReconcileEvery = 10 * time.Minute
	// BusyRetry is the fallback retry for a busy recipient; its own stop event retries sooner.
	BusyRetry = 30 * time.Second
	// maxBackoff caps the retry delay of a delivery that provably started no turn.
	maxBackoff     = 5 * time.Minute
	readTimeout    = 15 * time.Second
	deliverTimeout = 60 * time.Second
)

// ThreadState is what the engine needs to know of a thread.
type ThreadState struct {
	Running    bool   // a turn is in flight
	TurnID     string // the turn in flight, else the latest turn
	TurnStatus string // status of TurnID
	// Owned says every change of the thread reaches the engine as an event (this runtime
	// runs it), so reconciliation reads can be rare.
	Owned bool
	// Approval is the id of an approval of the thread that waits for an answer, if any.
	Approval string
}

// Reader reads a thread's state. A *model.Error with CodeThreadNotFound means the thread is
// confirmed gone; any other error is a failed read.
type Reader func(ctx context.Context, id model.ThreadID) (ThreadState, error)

// Sender starts a turn in the recipient thread, the same path as `thread send`. A failure
// that provably started no turn is marked with harness.NotStarted and is retried; one whose
// recipient cannot take a turn here at all is marked with ReadOnly and is given up.
type Sender func(ctx context.Context, recipient model.ThreadID, text string) error

// ReadOnly marks a Send failure whose recipient this runtime cannot start turns in (held by
// another process, archived, or of a harness no longer configured): retrying would not help.
// Other failures that provably started no turn, such as a command that cannot start, are
// retried within the delivery window.
func ReadOnly(err error) error {
	if err == nil {
		return nil
	}
	return readOnlyError{err}
}

type readOnlyError struct{ err error }

func (e readOnlyError) Error() string { return e.err.Error() }
func (e readOnlyError) Unwrap() error { return e.err }

func isReadOnly(err error) bool {
	var ro readOnlyError
	return errors.As(err, &ro)
}

// Options configure an Engine.
type Options struct {
	Store *store.Store
	Read  Reader
	Send  Sender
	Now   func() time.Time
	Log   io.Writer
	// Fault, when set, is called at named points (crash tests).
	Fault func(point string)
	// OnClientEvent is told when a client's event log grew.
	OnClientEvent func(client string)
	// MessageDir holds the texts of queued messages (Watch.MessageFile): messages.go.
	MessageDir string
	// OnChange is told of every change of a watch's state (registered, pending, delivering,
	// delivered, undeliverable), so that views of the watches never need a poll. It must not
	// block: it is called with the engine's lock held.
	OnChange func(w model.Watch)
	// Usage, when set, is a watched thread's token usage, which notifications carry (nil:
	// none reported).
	Usage func(model.ThreadID) *model.Usage
}

// Engine observes watched threads and delivers their notifications.
type Engine struct {
	opts      Options
	startedAt time.Time

	mu            sync.Mutex
	active        map[string]*model.Watch // watching, pending, delivering
	undeliverable []model.Watch           // newest last, at most model.UndeliverableKept
	threads       map[model.ThreadID]*threadObs
	dirty         map[model.ThreadID]bool // threads with news to evaluate
	retryNow      map[string]bool         // recipients to try at once
	// watching holds the watching watches of each thread (also in active), so that reading a
	// thread settles its watches without a pass over every watch.
	watching map[model.ThreadID]map[string]*model.Watch
	// restored are the watches loaded by Open: only their notifications wait out the restart
	// grace of a recipient. restarted are the restored watches whose thread was running when
	// the last runtime stopped, until their first successful read here.
	restored  map[string]bool
	restarted map[string]bool

	wake chan struct{}
	done chan struct{}
}

// threadObs is the in-memory observation state of one thread. Nothing here needs to survive
// a restart: the restart rules start it afresh.
type threadObs struct {
	owned        bool // from the last good read: see ThreadState.Owned
	lastRead     time.Time
	readOK       bool      // a read succeeded since this runtime started
	failingSince time.Time // first failure of the current run of failed reads
}

func (o *threadObs) reconcileEvery() time.Duration {
	if o.owned {
		return OwnedReconcileEvery
	}
	return ReconcileEvery
}

// Open loads the stored watches. Deliveries that were in flight when the last runtime died
// are due again: a duplicate is acceptable, a loss is not.
func Open(opts Options) (*Engine, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	e := &Engine{
		opts:      opts,
		startedAt: opts.Now(),
		active:    map[string]*model.Watch{},
		threads:   map[model.ThreadID]*threadObs{},
		dirty:     map[model.ThreadID]bool{},
		retryNow:  map[string]bool{},
		watching:  map[model.ThreadID]map[string]*model.Watch{},
		restored:  map[string]bool{},
		restarted: map[string]bool{},
		wake:      make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	var delivered []model.Watch
	err := opts.Store.Watches(func(w model.Watch) error {
		switch w.State {
		case model.WatchWatching, model.WatchPending:
			if w.State == model.WatchPending {
				// Its retry time was set against the last runtime's recipient (busy then); a
				// restart ended that turn, so it is tried at once (the restart grace covers a
				// recipient not back yet).
				w.NextAttempt = time.Time{}
			}
			e.active[w.ID] = &w
			e.restored[w.ID] = true
			e.dirty[w.Thread] = true
			if w.State == model.WatchWatching {
				e.indexWatching(&w)
				// A restart cuts a watched turn short; a watch on approval waits on, as the
				// thread may ask in a later turn.
				if w.RunningTurn != "" && w.On == "" {
					e.restarted[w.ID] = true
				}
			}
		case model.WatchDelivering:
			w.State = model.WatchPending
			w.NextAttempt = time.Time{}
			e.active[w.ID] = &w
			e.restored[w.ID] = true
		case model.WatchUndeliverable:
			e.undeliverable = append(e.undeliverable, w)
		case model.WatchDelivered:
			delivered = append(delivered, w)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range delivered {
		e.dropMessage(&delivered[i])
		if err := opts.Store.DeleteWatch(delivered[i].ID); err != nil {
			return nil, err
		}
	}
	sort.Slice(e.undeliverable, func(i, j int) bool { return e.undeliverable[i].UpdatedAt.Before(e.undeliverable[j].UpdatedAt) })
	return e, nil
}

// Run drives the engine until ctx ends: it wakes on events, on Kick, and at the next due
// time (a deadline, a retry, a reconciliation read). There is no per-watch loop.
func (e *Engine) Run(ctx context.Context) {
	defer close(e.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		next := e.Step(ctx)
		wait := time.Hour
		if !next.IsZero() {
			wait = next.Sub(e.opts.Now())
			if wait < 0 {
				wait = 0
			}
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-e.wake:
		case <-timer.C:
		}
	}
}

// Wait returns when Run has returned (after its context ended).
func (e *Engine) Wait() { <-e.done }

// Kick makes Run evaluate now (after an event, or after a test moved its clock).
func (e *Engine) Kick() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// OnEvent reports a change of a thread (observed or recipient). It never blocks.
func (e *Engine) OnEvent(id model.ThreadID, status, turnStatus string) {
	e.mu.Lock()
	e.dirty[id] = true
	if status != model.ThreadActive || turnStatus != "" {
		e.retryNow[string(id)] = true // a recipient that stopped may take its notification now
	}
	e.mu.Unlock()
	e.Kick()
}

// Register creates a watch on the thread's stop, or returns the one already watching the
// same pair.
func (e *Engine) Register(ctx context.Context, thread model.ThreadID, notify string, timeout time.Duration) (api.WatchResult, error) {
	return e.RegisterOn(ctx, thread, notify, "", timeout)
}

// RegisterOn is Register for what on names: "" or model.WatchOnStop for the stop, or
// model.WatchOnApproval for the first approval of the thread that waits (one pending now
// ends it at once; a stopped thread is watched for a later turn's request).
func (e *Engine) RegisterOn(ctx context.Context, thread model.ThreadID, notify, on string, timeout time.Duration) (api.WatchResult, error) {
	switch on {
	case "", model.WatchOnStop:
		on = ""
	case model.WatchOnApproval:
	default:
		return api.WatchResult{}, model.Errorf(model.CodeInvalidArgument, "use --on stop or --on approval", "unknown watch condition %q", on).WithDetail("field", "on")
	}
	if timeout == 0 {
		timeout = model.DefaultWatchTimeout
	}
	if timeout < 0 || timeout > model.MaxWatchTimeout {
		return api.WatchResult{}, model.Errorf(model.CodeInvalidArgument, "use --timeout-ms between 1 and 604800000 (7 days)", "watch timeout %s out of range", timeout)
	}
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	st, err := e.opts.Read(rctx, thread)
	cancel()
	if err != nil {
		return api.WatchResult{}, err
	}
	if on == "" && !st.Running && st.TurnID != "" && terminal(st.TurnStatus) {
		return api.WatchResult{State: "alreadyTerminal", Status: st.TurnStatus, SourceTurn: st.TurnID}, nil
	}
	now := e.opts.Now()
	e.mu.Lock()
	for _, w := range e.watching[thread] {
		if w.Notify == notify && w.On == on {
			dup := *w
			e.mu.Unlock()
			return api.WatchResult{State: model.WatchWatching, Watch: &dup, Existing: true}, nil
		}
	}
	e.mu.Unlock()
	id, err := uuid.NewV7()
	if err != nil {
		return api.WatchResult{}, err
	}
	w := model.Watch{V: 1, ID: id.String(), Thread: thread, Notify: notify, On: on, State: model.WatchWatching, RegisteredAt: now, Deadline: now.Add(timeout), UpdatedAt: now}
	if st.Running {
		w.RunningTurn = st.TurnID
	}
	if err := e.opts.Store.PutWatch(w); err != nil {
		return api.WatchResult{}, err
	}
	e.mu.Lock()
	e.active[w.ID] = &w
	e.indexWatching(&w)
	e.dirty[thread] = true // the thread may have stopped between the read and now
	e.changed(w)
	e.mu.Unlock()
	e.Kick()
	out := w
	return api.WatchResult{State: model.WatchWatching, Watch: &out}, nil
}

// List returns the watches by state, oldest registration first.
func (e *Engine) List() api.WatchesResult {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := api.WatchesResult{Watching: []model.Watch{}, Pending: []model.Watch{}, Undeliverable: append([]model.Watch{}, e.undeliverable...)}
	for _, w := range e.active {
		if w.State == model.WatchWatching {
			out.Watching = append(out.Watching, *w)
		} else {
			out.Pending = append(out.Pending, *w)
		}
	}
	byRegistration := func(ws []model.Watch) {
		sort.Slice(ws, func(i, j int) bool {
			if !ws[i].RegisteredAt.Equal(ws[j].RegisteredAt) {
				return ws[i].RegisteredAt.Before(ws[j].RegisteredAt)
			}
			return ws[i].ID < ws[j].ID
		})
	}
	byRegistration(out.Watching)
	byRegistration(out.Pending)
	return out
}

func terminal(status string) bool {
	switch status {
	case model.TurnCompleted, model.TurnFailed, model.TurnInterrupted:
		return true
	}
	return false
}

// Step does one pass: evaluates threads with news, deadlines and due reconciliations, then
// due deliveries. It returns when the engine next needs to run (zero: nothing scheduled).
func (e *Engine) Step(ctx context.Context) time.Time {
	now := e.opts.Now()
	for _, id := range e.threadsToRead(now) {
		e.observe(ctx, id)
	}
	for _, recipient := range e.dueRecipients(e.opts.Now()) {
		e.deliver(ctx, recipient)
	}
	return e.nextDue()
}

// threadsToRead picks the watched threads that have news, a passed deadline, or a due
// reconciliation read.
func (e *Engine) threadsToRead(now time.Time) []model.ThreadID {
	e.mu.Lock()
	defer e.mu.Unlock()
	var ids []model.ThreadID
	graceEnd := e.startedAt.Add(model.RestartGrace)
	for id, ws := range e.watching {
		deadline := false
		for _, w := range ws {
			deadline = deadline || !now.Before(w.Deadline)
		}
		obs := e.obs(id)
		// After the restart grace, a thread last read within it is evaluated at once.
		graceOver := !obs.readOK && obs.lastRead.Before(graceEnd) && !now.Before(graceEnd)
		if e.dirty[id] || graceOver || deadline || !now.Before(obs.lastRead.Add(obs.reconcileEvery()-reconcileSlack)) || (!obs.failingSince.IsZero() && !now.Before(e.unreadableAt(obs))) {
			ids = append(ids, id)
		}
	}
	for id := range e.dirty {
		delete(e.dirty, id)
	}
	return ids
}

func (e *Engine) indexWatching(w *model.Watch) {
	ws := e.watching[w.Thread]
	if ws == nil {
		ws = map[string]*model.Watch{}
		e.watching[w.Thread] = ws
	}
	ws[w.ID] = w
}

func (e *Engine) obs(id model.ThreadID) *threadObs {
	o := e.threads[id]
	if o == nil {
		o = &threadObs{}
		e.threads[id] = o
	}
	return o
}

// inGrace reports whether failures of a thread do not count yet: after a restart, until a
// read succeeds or RestartGrace has passed (the session owning it may still be coming back).
func (e *Engine) inGrace(o *threadObs, now time.Time) bool {
	return !o.readOK && now.Before(e.startedAt.Add(model.RestartGrace))
}

// unreadableAt is when a run of failed reads becomes `unreadable`.
func (e *Engine) unreadableAt(o *threadObs) time.Time {
	start := o.failingSince
	if !o.readOK {
		if g := e.startedAt.Add(model.RestartGrace); g.After(start) {
			start = g
		}
	}
	return start.Add(model.UnreadableAfter)
}

// save writes a watch; failures are logged and the in-memory state stays authoritative
// until the next write succeeds.
func (e *Engine) save(w *model.Watch, now time.Time) {
	w.UpdatedAt = now
	if err := e.opts.Store.PutWatch(*w); err != nil {
		fmt.Fprintf(e.opts.Log, "watch %s: save: %v\n", w.ID, err)
	}
	e.changed(*w)
}

func (e *Engine) changed(w model.Watch) {
	if e.opts.OnChange != nil {
		e.opts.OnChange(w)
	}
}

func (e *Engine) fault(point string) {
	if e.opts.Fault != nil {
		e.opts.Fault(point)
	}
}
