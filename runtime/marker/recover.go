package marker

import (
	"context"
	"fmt"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
)

// A turn that completed just before a crash has its completion recorded (Service.OnEvent) but
// no plan of its blocks. At start those turns are planned; the plan's index keeps a turn from
// being planned twice.

// faultMarkerTurnCompleted is the crash tests' point between a turn's completion being heard
// and anything of its blocks running.
const faultMarkerTurnCompleted = "marker-turn-completed"

// fault stops the process at point in crash-test builds.
func (s *Service) fault(point string) {
	if s.opts.Fault != nil {
		s.opts.Fault(point)
	}
}

// recoverTurns reads the turns in flight the last runtime left and plans the completed ones
// in the background.
func (s *Service) recoverTurns() error {
	var turns []model.MarkerTurn
	if err := s.deps.Store.MarkerTurns(func(t model.MarkerTurn) error {
		turns = append(turns, t)
		return nil
	}); err != nil {
		return err
	}
	for _, t := range turns {
		go s.recoverTurn(t)
	}
	return nil
}

// recoverTurn plans a turn heard completed, or one the thread shows completed as its last
// turn; a turn that did not complete (it was running at the crash and ended with the
// runtime) is settled, its blocks never run.
func (s *Service) recoverTurn(t model.MarkerTurn) {
	if !t.Completed {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeoutMarkers)
		status, err := s.lastTurnStatus(ctx, t.Author, t.Turn)
		cancel()
		switch {
		case err != nil:
			fmt.Fprintf(s.opts.Log, "marker turn %s of %s: %v\n", t.Turn, t.Author, err)
			return // left for the next start
		case status == model.TurnInProgress:
			return // still running: its completion event plans it
		case status != model.TurnCompleted:
			s.settleTurn(t.Author, t.Turn)
			return
		}
	}
	s.turnCompleted(t.Author, t.Turn)
}

// lastTurnStatus is the status of turn when it is the thread's last turn, "" when a later
// turn followed it (whatever it was, it was never heard completed).
func (s *Service) lastTurnStatus(ctx context.Context, id model.ThreadID, turn string) (string, error) {
	hs, err := s.opts.Threads.Harness(ctx, id)
	if err != nil {
		if model.IsCode(err, model.CodeThreadNotFound) {
			return "", nil
		}
		return "", err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return "", err
	}
	if lt := snap.Info.LastTurn; lt != nil && lt.ID == turn {
		return lt.Status, nil
	}
	return "", nil
}
