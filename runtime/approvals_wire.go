package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/approvals"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/harness"
)

// approvalSweep is how often unanswered approvals are checked against their deadline.
const approvalSweep = time.Second

// newApprovals makes the registry of native threads' approval requests; every change is
// published as an event under the asking thread, so only who may see the thread sees it.
func (h *Host) newApprovals() *approvals.Registry {
	return approvals.New(approvals.Options{
		Now: h.opts.Now,
		Policy: func() (string, time.Duration) {
			c := h.config().Approvals
			return c.Owner, c.Timeout.Duration
		},
		OnChange: func(a model.Approval) {
			h.publish(api.Event{Type: api.EventApproval, Thread: a.ThreadID, Status: a.State, TurnID: a.TurnID, Approval: &a})
			if w := h.watch; w != nil {
				w.OnEvent(model.ThreadID(a.ThreadID), model.ThreadActive, "") // watches on approval
			}
			if ctx := h.approvalsCtx.Load(); ctx != nil && a.State == model.ApprovalLost && a.Outcome == "" {
				go h.approvalOutcome(*ctx, a)
			}
		},
		Persist: func(a model.Approval) {
			if err := h.store.PutApproval(a); err != nil {
				fmt.Fprintf(h.opts.Log, "approval %s: %v\n", a.ID, err)
			}
		},
		Forget: func(id string) {
			if err := h.store.DeleteApproval(id); err != nil {
				fmt.Fprintf(h.opts.Log, "approval %s: %v\n", id, err)
			}
		},
	})
}

// askApproval is what the native harness calls with each request Codex sends.
func (h *Host) askApproval(ctx context.Context, req model.Approval) string {
	return h.approvals.Ask(ctx, req)
}

// runApprovalSweep expires unanswered approvals until ctx ends.
func (h *Host) runApprovalSweep(ctx context.Context) {
	t := time.NewTicker(approvalSweep)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.approvals.Sweep()
		}
	}
}

// approvalsEvent resolves the approvals of a thread whose turn ended before anyone answered.
func (h *Host) approvalsEvent(ev harness.Event) {
	if ev.TurnStatus != "" && ev.TurnStatus != model.TurnInProgress {
		h.approvals.ThreadStopped(string(ev.Thread))
	}
}

// approvalsOfTranscript adds to each turn of a transcript of the default Codex home the
// approvals this runtime held for it (its native threads live there).
func (h *Host) approvalsOfTranscript(res api.CatalogTranscriptResult, err error) (api.CatalogTranscriptResult, error) {
	if err != nil || res.Host != catalog.LocalHostID {
		return res, err
	}
	byTurn := map[string][]model.Approval{}
	for _, a := range h.approvals.OfThread(res.Thread) {
		byTurn[a.TurnID] = append(byTurn[a.TurnID], a)
	}
	for i := range res.Turns {
		res.Turns[i].Approvals = byTurn[res.Turns[i].ID]
	}
	return res, nil
}
