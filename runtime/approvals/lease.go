package approvals

import (
	"slices"

	"github.com/codexhost/codexhost/model"
)

// Take gives holder the lease of approval id: a new lease with a higher fence. A live lease
// of another holder is kept, except against the operator, who can always take it; with an
// Owner configured only that owner and the operator may take one.
func (r *Registry) Take(id, holder string) (model.Approval, error) {
	r.mu.Lock()
	a, err := r.takeLocked(id, holder)
	r.mu.Unlock()
	if err == nil {
		r.changed(a)
	}
	return a, err
}

func (r *Registry) takeLocked(id, holder string) (model.Approval, error) {
	e, err := r.pendingLocked(id)
	if err != nil {
		return model.Approval{}, err
	}
	if owner, _ := r.policy(); owner != "" && holder != owner && holder != HolderOperator {
		return model.Approval{}, model.Errorf(model.CodePermissionDenied, "ask "+owner+" (the [approvals] owner) or the operator to answer it",
			"approvals here are answered by %s", owner)
	}
	now := r.opts.Now()
	if l := e.a.Lease; l != nil && l.Holder != holder && now.Before(l.Expires) && holder != HolderOperator {
		return model.Approval{}, model.Errorf(model.CodeFailedPrecondition, "wait until the lease expires, or ask the operator",
			"approval %s is held by %s until %s", id, l.Holder, l.Expires.Format("15:04:05")).WithDetail("holder", l.Holder)
	}
	fence := int64(1)
	if e.a.Lease != nil {
		fence = e.a.Lease.Fence + 1
	}
	e.a.Lease = &model.ApprovalLease{Holder: holder, Fence: fence, Expires: now.Add(r.opts.Lease)}
	return e.a, nil
}

func (r *Registry) pendingLocked(id string) (*entry, error) {
	e := r.items[id]
	if e == nil {
		return nil, model.Errorf(model.CodeInvalidArgument, "list them with `codexhost approvals`", "no approval %s", id)
	}
	if e.a.State != model.ApprovalPending {
		return nil, model.Errorf(model.CodeFailedPrecondition, "nothing to do: it was decided",
			"approval %s is %s (%s by %s)", id, e.a.State, e.a.Decision, e.a.DecidedBy).WithDetail("state", e.a.State)
	}
	return e, nil
}

// Answer decides approval id for holder. fence 0 takes the lease and answers at once (the
// first answering surface); otherwise it must be the fence of holder's live lease.
func (r *Registry) Answer(id, holder, decision string, fence int64) (model.Approval, error) {
	r.mu.Lock()
	e, err := r.pendingLocked(id)
	if err == nil {
		err = checkDecision(e.a, decision)
	}
	if err == nil && fence == 0 {
		_, err = r.takeLocked(id, holder)
	} else if err == nil {
		l := e.a.Lease
		if l == nil || l.Holder != holder || l.Fence != fence || !r.opts.Now().Before(l.Expires) {
			err = model.Errorf(model.CodeFailedPrecondition, "take the lease again (approve without --fence takes it) and answer with its fence",
				"the lease with fence %d on approval %s is no longer held by %s", fence, id, holder).WithDetail("fence", fence)
		}
	}
	r.mu.Unlock()
	if err != nil {
		return model.Approval{}, err
	}
	if !r.settle(id, model.ApprovalAnswered, decision, holder) {
		a, _ := r.Get(id)
		return model.Approval{}, model.Errorf(model.CodeFailedPrecondition, "nothing to do: it was decided", "approval %s was decided meanwhile by %s", id, a.DecidedBy)
	}
	a, _ := r.Get(id)
	return a, nil
}

// checkDecision refuses a decision Codex did not offer. Decline and cancel are always taken.
func checkDecision(a model.Approval, decision string) error {
	switch decision {
	case model.DecisionDecline, model.DecisionCancel:
		return nil
	case model.DecisionAccept, model.DecisionAcceptForSession:
		if slices.Contains(a.Decisions, decision) {
			return nil
		}
	}
	return model.Errorf(model.CodeInvalidArgument, "choose one of the offered decisions", "decision %q is not offered for %s (offered: %v)", decision, a.ID, a.Decisions).
		WithDetail("decisions", a.Decisions)
}
