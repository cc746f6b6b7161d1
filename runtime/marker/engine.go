package marker

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Threads is what the engine does to threads, through the runtime's own paths.
type Threads interface {
	// Facts reads what the gates need of one thread; CodeThreadNotFound when there is none.
	Facts(ctx context.Context, id string) (Facts, error)
	// View reads a snapshot for a report: status, last turn and the newest chars of its result.
	View(ctx context.Context, id string, chars int) (view ThreadView, running bool, err error)
	// Create starts a thread recorded as created by author (its delegation parent) with the
	// block's prompt, not a sub-agent: no shared history or lifetime; a *model.Error with
	// CodeFailedPrecondition is a refusal (its message the reason), anything else a failure.
	Create(ctx context.Context, author Facts, c Create) (Created, error)
	// Cancel stops the running turn through the real cancel path.
	Cancel(ctx context.Context, id string) (turnID string, err error)
	// Retry starts a new turn with the last turn's user message, model unchanged.
	Retry(ctx context.Context, id string) (turnID string, err error)
	// Permission looks up the principal's right to a control tool.
	Permission(principal string, tool Tool) Permission
	// ActiveThreads counts the principal's threads with a running turn (the quota).
	ActiveThreads(ctx context.Context, principal string) (int, error)
}

// Store keeps the audit, marker-created links and durable runs.
type Store interface {
	PutMarkerAudits([]model.MarkerAudit) error
	PutMarkerChild(model.MarkerChild) error
	MarkerChild(model.ThreadID) (model.MarkerChild, error)
	MarkerChildren(model.ThreadID) (int, error)
	PutMarkerRun(model.MarkerRun) error
	// PlanMarkerRun records a new planned run and settles its turn; store.ErrPlanned when
	// the turn was planned before.
	PlanMarkerRun(model.MarkerRun) error
	MarkerRuns(func(model.MarkerRun) error) error
}

// Deliver queues a run's report, exactly once, through the notification path (busy →
// pending, retried, merged with the author's other notifications).
type Deliver func(run model.MarkerRun, text string) error

// Options configure an Engine.
type Options struct {
	Threads Threads
	Store   Store
	Deliver Deliver
	Now     func() time.Time
	Log     io.Writer
	// Workers bounds the read rounds of polls and waits running at once; PrincipalWorkers
	// bounds those of one principal (0: half of Workers, at least one).
	Workers          int
	PrincipalWorkers int
	// Quota is the principal's maximum of running threads before a creation round.
	Quota func() int
	// NamesDir keeps the task-create names of runs still to report (names.go); "" keeps
	// them in memory only.
	NamesDir string
	// ParentOf is the delegation parent of a thread ("" when it has none); with it the
	// generation guard counts through delegations between marker creations.
	ParentOf func(model.ThreadID) (model.ThreadID, error)
	// TurnOutput reads a turn's assistant output again, for a run planned before a restart.
	TurnOutput func(ctx context.Context, author model.ThreadID, turn string) (string, error)
	// Fault is the crash tests' hook at FaultRunPlanned and FaultBlockStarted; nil in
	// ordinary builds.
	Fault func(point string)
}

// Engine executes the blocks of completed turns.
type Engine struct {
	opts  Options
	sched *scheduler

	mu      sync.Mutex
	runs    map[string]*liveRun          // by run id
	names   map[string]map[int]string    // run id → seq → task-create name (report only)
	results map[string]map[string]string // run id → thread → result tail read before a restart-free report
	refused map[model.ThreadID]int       // author → runs in a row with no block accepted
	wg      sync.WaitGroup
	closed  bool
}

type liveRun struct {
	run    model.MarkerRun
	cancel context.CancelFunc
	saved  bool // its durable record exists: a restart resumes it
}

// New makes an engine; Resume restores the runs of the last runtime.
func New(opts Options) *Engine {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	if opts.Quota == nil {
		opts.Quota = func() int { return 16 }
	}
	e := &Engine{opts: opts, runs: map[string]*liveRun{}, names: map[string]map[int]string{}, results: map[string]map[string]string{}}
	e.sched = newScheduler(opts.Now, opts.Workers, opts.PrincipalWorkers, e.round)
	return e
}

// OnEvent wakes the polls and waits of the thread: it changed. An interrupted turn of an
// author abandons its runs.
func (e *Engine) OnEvent(thread model.ThreadID, turnStatus string) {
	if turnStatus == model.TurnInterrupted {
		e.AuthorCancelled(thread)
	}
	e.sched.wake(thread)
}

// AuthorCancelled abandons what has not run of the author's runs: no report is sent.
func (e *Engine) AuthorCancelled(author model.ThreadID) {
	e.mu.Lock()
	var hit []*liveRun
	for _, lr := range e.runs {
		if lr.run.Author == author {
			hit = append(hit, lr)
		}
	}
	e.mu.Unlock()
	for _, lr := range hit {
		lr.cancel()
	}
}

// Close stops every run (their durable state resumes them at the next start) and waits.
func (e *Engine) Close() {
	e.mu.Lock()
	e.closed = true
	for _, lr := range e.runs {
		lr.cancel()
	}
	e.mu.Unlock()
	e.wg.Wait()
	e.sched.close()
}

// PendingReads counts the polls and waits not finished yet, of every run.
func (e *Engine) PendingReads() int { return e.sched.pendingReads() }

// Active lists the runs of an author still polling or waiting.
func (e *Engine) Active(author model.ThreadID) []model.MarkerRun {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []model.MarkerRun
	for _, lr := range e.runs {
		if lr.run.Author == author && lr.saved {
			out = append(out, lr.run)
		}
	}
	return out
}

// Creating reports whether a run may be creating threads now: one not yet past its creation
// and control blocks (its durable record is still the plan).
func (e *Engine) Creating() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, lr := range e.runs {
		if !lr.saved {
			return true
		}
	}
	return false
}

func (e *Engine) track(lr *liveRun) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.runs[lr.run.ID] = lr
	e.wg.Add(1)
	return true
}

func (e *Engine) untrack(lr *liveRun) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.runs, lr.run.ID)
	delete(e.names, lr.run.ID)
	delete(e.results, lr.run.ID)
	lr.cancel()
}

// Resume restores the runs the last runtime left: planned ones run what had not run, and the
// polls and waits of running ones go on until their absolute deadlines; each is reported once.
func (e *Engine) Resume() error {
	var runs []model.MarkerRun
	if err := e.opts.Store.MarkerRuns(func(r model.MarkerRun) error {
		if r.State == model.MarkerRunning || r.State == model.MarkerPlanned {
			runs = append(runs, r)
		}
		return nil
	}); err != nil {
		return err
	}
	live := map[string]bool{}
	for _, r := range runs {
		live[r.ID] = true
	}
	e.sweepNames(live)
	for _, r := range runs {
		e.loadNames(r.ID)
		if r.State == model.MarkerPlanned {
			e.launch(r, e.resumePlanned)
		} else {
			e.launch(r, e.finish)
		}
	}
	return nil
}
