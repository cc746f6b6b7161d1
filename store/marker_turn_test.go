package store

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Scenario: S002-01 — a completed turn is planned once: planning settles its turn in flight,
// and a second plan of the same turn, before or after a restart, is refused.
func TestMarkerTurnIsPlannedOnce(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
	for _, turn := range []string{"t1", "t2"} {
		if err := s.PutMarkerTurn(model.MarkerTurn{Author: parentID, Turn: turn, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutMarkerTurn(model.MarkerTurn{Author: parentID, Turn: "t1", Completed: true, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	run := model.MarkerRun{ID: "r1", Author: parentID, Turn: "t1", State: model.MarkerPlanned, StartedAt: at}
	if err := s.PlanMarkerRun(run); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(home, Options{}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run.ID = "r2"
	if err := s.PlanMarkerRun(run); !errors.Is(err, ErrPlanned) {
		t.Fatalf("second plan of the turn: %v, want ErrPlanned", err)
	}
	var left []model.MarkerTurn
	if err := s.MarkerTurns(func(t model.MarkerTurn) error { left = append(left, t); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].Turn != "t2" || left[0].Completed {
		t.Fatalf("turns in flight %+v, want t2 only", left)
	}
	if err := s.DeleteMarkerRun("r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.PlanMarkerRun(run); err != nil {
		t.Fatalf("plan after the run was deleted: %v", err)
	}
}
