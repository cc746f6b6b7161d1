package supervise

import (
	"context"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
)

// The write controls of the compat tools: a turn of a session loaded in a local host's App
// Server is steered (turn/steer) or interrupted (turn/interrupt), never started or resumed.
// The catalog finds the running turn; the turn itself is acted on here, with the turns of
// supervised threads.

// CompatSend steers the session's running turn with the message. Mode start is refused by
// the caller before this.
func (s *Service) CompatSend(ctx context.Context, p api.CompatSessionSendParams) (api.CompatSessionSendResult, error) {
	cat, err := s.catalog()
	if err != nil {
		return api.CompatSessionSendResult{}, err
	}
	t, err := cat.OnRunningTurn(ctx, p.Endpoint, p.Thread, p.ExpectedTurnID, "steer",
		func(ctx context.Context, conn catalog.Conn, t catalog.RunningTurn) (string, error) {
			return appserver.On(conn).TurnSteer(ctx, appserver.TurnSteerParams{ThreadID: string(t.Thread), ExpectedTurnID: t.Turn, Input: appserver.TextInput(p.Message)})
		})
	if err != nil {
		return api.CompatSessionSendResult{}, err
	}
	return api.CompatSessionSendResult{Endpoint: t.Endpoint, Thread: string(t.Thread), TurnID: t.Turn, Steered: true}, nil
}

// CompatInterrupt interrupts the session's running turn.
func (s *Service) CompatInterrupt(ctx context.Context, p api.CompatSessionInterruptParams) (api.CompatSessionInterruptResult, error) {
	cat, err := s.catalog()
	if err != nil {
		return api.CompatSessionInterruptResult{}, err
	}
	t, err := cat.OnRunningTurn(ctx, p.Endpoint, p.Thread, p.ExpectedTurnID, "interrupt",
		func(ctx context.Context, conn catalog.Conn, t catalog.RunningTurn) (string, error) {
			return "", appserver.On(conn).TurnInterrupt(ctx, string(t.Thread), t.Turn)
		})
	if err != nil {
		return api.CompatSessionInterruptResult{}, err
	}
	return api.CompatSessionInterruptResult{Endpoint: t.Endpoint, Thread: string(t.Thread), TurnID: t.Turn, Interrupted: true}, nil
}

func (s *Service) catalog() (*catalog.Catalog, error) {
	if s.branches == nil || s.deps.Catalog == nil {
		return nil, s.notRunning()
	}
	return s.deps.Catalog, nil
}
