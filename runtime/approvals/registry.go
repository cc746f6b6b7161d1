// Package approvals holds the approval requests of native threads until one owner answers:
// Codex's request waits in Ask while people and clients list, take and answer it. Each
// approval has at most one lease holder at a time; a decision carries the lease's fence, so
// one made under a lease since taken over or expired changes nothing.
package approvals

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Holder names of decisions the runtime makes itself.
const (
	HolderOperator = "operator"
	byTimeout      = "timeout"
	byAppServer    = "the App Server exited"
	byRestart      = "the runtime stopped"
)

// Defaults of Options.
const (
	DefaultTimeout = 10 * time.Minute
	DefaultLease   = 2 * time.Minute
	// keepDecided bounds the decided approvals kept for listing.
	keepDecided = 200
)

// Options configure a Registry.
type Options struct {
	Now func() time.Time
	// Timeout is how long an approval waits before the default decision; Lease how long a
	// taken lease lasts.
	Timeout, Lease time.Duration
	// Policy, when set, overrides them from the config as it is now: owner, when not "", is
	// the only holder (besides the operator) who may take a lease; a zero timeout keeps
	// Timeout.
	Policy func() (owner string, timeout time.Duration)
	// OnChange is told of every change, outside the registry's lock.
	OnChange func(model.Approval)
	// Persist writes an approval's latest state, Forget drops one no longer kept (store.go).
	Persist func(model.Approval)
	Forget  func(id string)
}

// Registry is the runtime's pending and recently decided approvals.
type Registry struct {
	opts Options

	// pmu orders Persist calls: each writes the state current when it runs, so the last write
	// is the last state even when changes race.
	pmu sync.Mutex

	mu    sync.Mutex
	seq   int
	items map[string]*entry
	order []string // ids, oldest first
}

type entry struct {
	a    model.Approval
	done chan struct{} // closed once decided
}

// New makes a registry.
func New(opts Options) *Registry {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	return &Registry{opts: opts, items: map[string]*entry{}}
}

// Ask records req and waits for its decision: an answer, the default decision at expiry, or
// cancel when ctx ends (the App Server went away) or the turn ended first.
func (r *Registry) Ask(ctx context.Context, req model.Approval) string {
	e := r.add(req)
	select {
	case <-e.done:
	case <-ctx.Done():
		// The App Server that asked is gone: no decision can reach it.
		r.settle(e.a.ID, model.ApprovalLost, "", byAppServer)
		<-e.done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return e.a.Decision
}

func (r *Registry) add(req model.Approval) *entry {
	now := r.opts.Now()
	r.mu.Lock()
	if e := r.lostLocked(req); e != nil {
		// Codex asks again what a previous App Server asked: the same approval, pending anew.
		req.ID, req.Reasked = e.a.ID, true
	} else {
		for req.ID == "" || r.items[req.ID] != nil {
			r.seq++
			req.ID = fmt.Sprintf("ap-%d-%d", now.Unix(), r.seq)
		}
		r.order = append(r.order, req.ID)
	}
	_, timeout := r.policy()
	req.State, req.CreatedAt, req.ExpiresAt = model.ApprovalPending, now, now.Add(timeout)
	if req.Decisions == nil {
		req.Decisions = []string{model.DecisionAccept, model.DecisionDecline, model.DecisionCancel}
	}
	e := &entry{a: req, done: make(chan struct{})}
	r.items[req.ID] = e
	dropped := r.trimLocked()
	a := e.a
	r.mu.Unlock()
	r.changed(a)
	r.forget(dropped)
	return e
}

// lostLocked finds the lost approval req asks again: same thread, turn and item.
func (r *Registry) lostLocked(req model.Approval) *entry {
	if req.ItemID == "" {
		return nil
	}
	for _, id := range r.order {
		e := r.items[id]
		if a := e.a; a.State == model.ApprovalLost && a.ThreadID == req.ThreadID && a.TurnID == req.TurnID && a.ItemID == req.ItemID && a.Kind == req.Kind {
			return e
		}
	}
	return nil
}

// trimLocked drops the oldest decided approvals beyond keepDecided and returns their ids.
func (r *Registry) trimLocked() (dropped []string) {
	decided := 0
	for _, id := range r.order {
		if r.items[id].a.State != model.ApprovalPending {
			decided++
		}
	}
	for i := 0; decided > keepDecided && i < len(r.order); {
		id := r.order[i]
		if r.items[id].a.State == model.ApprovalPending {
			i++
			continue
		}
		delete(r.items, id)
		r.order = slices.Delete(r.order, i, i+1)
		dropped = append(dropped, id)
		decided--
	}
	return dropped
}

func (r *Registry) forget(ids []string) {
	if r.opts.Forget == nil {
		return
	}
	for _, id := range ids {
		r.opts.Forget(id)
	}
}

// settle decides a pending approval; false when it was no longer pending.
func (r *Registry) settle(id, state, decision, by string) bool {
	r.mu.Lock()
	e := r.items[id]
	if e == nil || e.a.State != model.ApprovalPending {
		r.mu.Unlock()
		return false
	}
	now := r.opts.Now()
	e.a.State, e.a.Decision, e.a.DecidedBy, e.a.DecidedAt, e.a.Lease = state, decision, by, &now, nil
	close(e.done)
	a := e.a
	r.mu.Unlock()
	r.changed(a)
	return true
}

func (r *Registry) changed(a model.Approval) {
	if r.opts.Persist != nil {
		r.pmu.Lock()
		if cur, ok := r.Get(a.ID); ok {
			r.opts.Persist(cur)
		}
		r.pmu.Unlock()
	}
	if r.opts.OnChange != nil {
		r.opts.OnChange(a)
	}
}

// List returns the approvals visible(threadID) admits, pending first, oldest first.
func (r *Registry) List(visible func(threadID string) bool) []model.Approval {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []model.Approval{}
	for _, pending := range []bool{true, false} {
		for _, id := range r.order {
			a := r.items[id].a
			if (a.State == model.ApprovalPending) == pending && (visible == nil || visible(a.ThreadID)) {
				out = append(out, a)
			}
		}
	}
	return out
}

// Waiting reports whether an approval of thread waits for an answer.
func (r *Registry) Waiting(threadID string) bool { return r.PendingOf(threadID) != "" }

// PendingOf is the id of thread's oldest approval that waits for an answer, or "".
func (r *Registry) PendingOf(threadID string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range r.order {
		if a := r.items[id].a; a.State == model.ApprovalPending && a.ThreadID == threadID {
			return id
		}
	}
	return ""
}

// OfThread returns thread's approvals, oldest first.
func (r *Registry) OfThread(threadID string) []model.Approval {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []model.Approval
	for _, id := range r.order {
		if a := r.items[id].a; a.ThreadID == threadID {
			out = append(out, a)
		}
	}
	return out
}

// Get returns one approval.
func (r *Registry) Get(id string) (model.Approval, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.items[id]
	if e == nil {
		return model.Approval{}, false
	}
	return e.a, true
}

// Sweep sends the default decision to every approval past its deadline; the runtime calls it
// on a ticker, tests with their clock.
func (r *Registry) Sweep() {
	now := r.opts.Now()
	r.mu.Lock()
	var due []string
	for _, id := range r.order {
		if a := r.items[id].a; a.State == model.ApprovalPending && !now.Before(a.ExpiresAt) {
			due = append(due, id)
		}
	}
	r.mu.Unlock()
	for _, id := range due {
		r.settle(id, model.ApprovalExpired, model.DefaultApprovalDecision, byTimeout)
	}
}

// ThreadStopped resolves the pending approvals of a thread whose turn ended (interrupted,
// say) before anyone answered: Codex no longer waits for them.
func (r *Registry) ThreadStopped(threadID string) {
	r.mu.Lock()
	var ids []string
	for _, id := range r.order {
		if a := r.items[id].a; a.State == model.ApprovalPending && a.ThreadID == threadID {
			ids = append(ids, id)
		}
	}
	r.mu.Unlock()
	for _, id := range ids {
		r.settle(id, model.ApprovalResolved, model.DecisionCancel, "the turn ended")
	}
}

func (r *Registry) policy() (owner string, timeout time.Duration) {
	timeout = r.opts.Timeout
	if r.opts.Policy != nil {
		var t time.Duration
		owner, t = r.opts.Policy()
		if t > 0 {
			timeout = t
		}
	}
	return owner, timeout
}
