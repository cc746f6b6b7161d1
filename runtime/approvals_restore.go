package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Outcome reads of a lost approval's thread back off up to this, and give up after
// approvalOutcomeFor (the record then stays lost without an outcome).
const (
	approvalOutcomeMaxWait = 30 * time.Second
	approvalOutcomeFor     = time.Hour
)

// restoreApprovals loads the approvals the previous runtime on this home recorded; those it
// left pending are lost, and their turns' real outcomes are looked up in the background.
func (h *Host) restoreApprovals(ctx context.Context) error {
	var list []model.Approval
	if err := h.store.Approvals(func(a model.Approval) error {
		list = append(list, a)
		return nil
	}); err != nil {
		return err
	}
	// Each one lost is announced as it is restored, which starts the look-up of its outcome.
	h.approvalsCtx.Store(&ctx)
	h.approvals.Restore(list)
	return nil
}

// approvalOutcome records how a lost approval's turn really ended, as the thread reads once
// that turn is over: its status when it is the thread's latest, or "ended" when later turns
// followed (their reads no longer say how it ended).
func (h *Host) approvalOutcome(ctx context.Context, a model.Approval) {
	wait, deadline := time.Second, time.Now().Add(approvalOutcomeFor)
	for time.Now().Before(deadline) {
		st, err := h.threads.WatchRead(ctx, model.ThreadID(a.ThreadID))
		switch {
		case model.IsCode(err, model.CodeThreadNotFound):
			h.approvals.SetOutcome(a.ID, "thread not found")
			return
		case err != nil:
			fmt.Fprintf(h.opts.Log, "approval %s: reading its thread: %v\n", a.ID, err)
		case !st.Running && st.TurnID == a.TurnID && turnOver(st.TurnStatus):
			h.approvals.SetOutcome(a.ID, st.TurnStatus)
			return
		case !st.Running && st.TurnID != "" && st.TurnID != a.TurnID:
			h.approvals.SetOutcome(a.ID, "ended")
			return
		}
		if cur, ok := h.approvals.Get(a.ID); !ok || cur.State != model.ApprovalLost {
			return // asked again, or no longer kept
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, approvalOutcomeMaxWait)
	}
}

func turnOver(status string) bool {
	switch status {
	case model.TurnCompleted, model.TurnFailed, model.TurnInterrupted:
		return true
	}
	return false
}
