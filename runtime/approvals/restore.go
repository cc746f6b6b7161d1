package approvals

import (
	"slices"

	"github.com/codexhost/codexhost/model"
)

// Restore loads the approvals a previous runtime on this home recorded (a restart, or a
// follower taking the home over). One still pending was asked by an App Server that ended
// with that runtime, so no decision can reach it: it becomes lost, and SetOutcome records how
// its turn really ended once that is known. Codex asking the same item again makes it pending
// anew under the same id (add). Restore returns the lost approvals whose outcome is unknown.
func (r *Registry) Restore(list []model.Approval) []model.Approval {
	list = slices.Clone(list)
	slices.SortStableFunc(list, func(a, b model.Approval) int { return a.CreatedAt.Compare(b.CreatedAt) })
	now := r.opts.Now()
	var lost []model.Approval
	r.mu.Lock()
	for _, a := range list {
		if a.ID == "" || r.items[a.ID] != nil {
			continue
		}
		if a.State == model.ApprovalPending {
			a.State, a.Decision, a.DecidedBy, a.DecidedAt, a.Lease = model.ApprovalLost, "", byRestart, &now, nil
		}
		e := &entry{a: a, done: make(chan struct{})}
		close(e.done)
		r.items[a.ID] = e
		r.order = append(r.order, a.ID)
		if a.State == model.ApprovalLost && a.Outcome == "" {
			lost = append(lost, a)
		}
	}
	dropped := r.trimLocked()
	r.mu.Unlock()
	for _, a := range lost {
		r.changed(a)
	}
	r.forget(dropped)
	return lost
}

// SetOutcome records the real end of a lost approval's turn; false when id is not a lost
// approval awaiting it (asked again meanwhile, say).
func (r *Registry) SetOutcome(id, outcome string) bool {
	r.mu.Lock()
	e := r.items[id]
	if e == nil || e.a.State != model.ApprovalLost || e.a.Outcome != "" || outcome == "" {
		r.mu.Unlock()
		return false
	}
	e.a.Outcome = outcome
	a := e.a
	r.mu.Unlock()
	r.changed(a)
	return true
}
