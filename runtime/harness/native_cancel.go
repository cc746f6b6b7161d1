package harness

import (
	"context"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Cancel interrupts the active turn of a thread loaded in this App Server.
func (n *Native) Cancel(ctx context.Context, id model.ThreadID) (string, error) {
	c, err := n.Client(ctx)
	if err != nil {
		return "", err
	}
	t, _ := n.tracked(c, id)
	turnID := t.turnID
	if turnID == "" {
		turnID, err = n.findActiveTurn(ctx, c, id)
		if err != nil {
			return "", err
		}
	}
	err = c.TurnInterrupt(ctx, string(id), turnID)
	if msg, ok := appserver.RPCMessage(err); ok {
		// "expected active turn id X but found Y": our view lagged; interrupt what runs.
		if _, found, ok := strings.Cut(msg, " but found "); ok {
			turnID = strings.Trim(strings.TrimSpace(found), "`")
			err = c.TurnInterrupt(ctx, string(id), turnID)
		}
	}
	// turn/start answers before the App Server counts the turn as active, so an interrupt
	// right after a send can find "no active turn": while we still follow that turn, give it
	// a moment to start and try again.
	for delay := 10 * time.Millisecond; appserver.RPCHas(err, "no active turn") && delay <= 640*time.Millisecond; delay *= 2 {
		if now, _ := n.tracked(c, id); now.turnID != turnID {
			break
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(delay):
		}
		err = c.TurnInterrupt(ctx, string(id), turnID)
	}
	if appserver.RPCHas(err, "no active turn") {
		return "", nativeNothingToCancel(id)
	}
	if err != nil {
		return "", nativeMapErr(err, id)
	}
	return turnID, nil
}

// findActiveTurn asks the App Server for the running turn when live tracking does not know it.
func (n *Native) findActiveTurn(ctx context.Context, c *appserver.Client, id model.ThreadID) (string, error) {
	th, err := nativeThreadRead(ctx, c, id)
	if err != nil {
		return "", nativeMapErr(err, id)
	}
	if th.Status.Type == appserver.StatusNotLoaded {
		if nativeOtherWriter(c.Info().CodexHome, string(id), c.Pid(), time.Time{}) {
			return "", model.Errorf(model.CodeFailedPrecondition, "cancel it in the Codex process that runs it",
				"thread %s is open in another Codex process; only that process can interrupt its turn", id)
		}
		return "", nativeNothingToCancel(id)
	}
	if th.Status.Type != appserver.StatusActive {
		return "", nativeNothingToCancel(id)
	}
	res, err := c.TurnsList(ctx, appserver.TurnsListParams{ThreadID: string(id), Limit: 1})
	if err != nil {
		return "", nativeMapErr(err, id)
	}
	if len(res.Data) == 0 || res.Data[0].Status != appserver.TurnInProgress {
		return "", nativeNothingToCancel(id)
	}
	return res.Data[0].ID, nil
}

func nativeNothingToCancel(id model.ThreadID) error {
	return model.Errorf(model.CodeFailedPrecondition, "nothing to cancel; read the thread for its last result",
		"thread %s has no active turn", id)
}
