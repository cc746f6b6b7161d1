package approvals

import (
	"context"
	"time"

	"github.com/codexhost/codexhost/model"
)

// SweepEvery is how often unanswered approvals are checked against their deadline.
const SweepEvery = time.Second

// RunSweep expires unanswered approvals every SweepEvery until ctx ends.
func (r *Registry) RunSweep(ctx context.Context) {
	t := time.NewTicker(SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.Sweep()
		}
	}
}

// TurnEnded resolves the approvals of a thread whose turn ended (turnStatus) before anyone
// answered; "" and a turn in progress change nothing.
func (r *Registry) TurnEnded(thread, turnStatus string) {
	if turnStatus != "" && turnStatus != model.TurnInProgress {
		r.ThreadStopped(thread)
	}
}
