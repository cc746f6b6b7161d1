package approvals

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/watch"
)

// Outcome reads of a lost approval's thread back off up to this, and give up after
// outcomeFor (the record then stays lost without an outcome).
const (
	outcomeMaxWait = 30 * time.Second
	outcomeFor     = time.Hour
)

// RestoreFrom loads the approvals the previous runtime on this home recorded (load is the
// store's listing) and restores them (Restore): those it left pending are lost, and each is
// announced, which starts the look-up of its outcome (LookUpOutcome).
func (r *Registry) RestoreFrom(load func(func(model.Approval) error) error) error {
	var list []model.Approval
	if err := load(func(a model.Approval) error {
		list = append(list, a)
		return nil
	}); err != nil {
		return err
	}
	r.Restore(list)
	return nil
}

// LookUpOutcome records how a lost approval's turn really ended, as the thread reads (read)
// once that turn is over: its status when it is the thread's latest, or "ended" when later
// turns followed (their reads no longer say how it ended). Failed reads are logged to log.
func (r *Registry) LookUpOutcome(ctx context.Context, a model.Approval, read watch.Reader, log io.Writer) {
	wait, deadline := time.Second, time.Now().Add(outcomeFor)
	for time.Now().Before(deadline) {
		st, err := read(ctx, model.ThreadID(a.ThreadID))
		switch {
		case model.IsCode(err, model.CodeThreadNotFound):
			r.SetOutcome(a.ID, "thread not found")
			return
		case err != nil:
			fmt.Fprintf(log, "approval %s: reading its thread: %v\n", a.ID, err)
		case !st.Running && st.TurnID == a.TurnID && turnOver(st.TurnStatus):
			r.SetOutcome(a.ID, st.TurnStatus)
			return
		case !st.Running && st.TurnID != "" && st.TurnID != a.TurnID:
			r.SetOutcome(a.ID, "ended")
			return
		}
		if cur, ok := r.Get(a.ID); !ok || cur.State != model.ApprovalLost {
			return // asked again, or no longer kept
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, outcomeMaxWait)
	}
}

func turnOver(status string) bool {
	switch status {
	case model.TurnCompleted, model.TurnFailed, model.TurnInterrupted:
		return true
	}
	return false
}
