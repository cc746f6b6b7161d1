package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Handoff and task records survive a reopen, keep fields of newer builds, and a missing one
// is ErrNotFound.
func TestHandoffAndTaskRecords(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	h := model.HandoffRecord{V: 1, ID: "handoff_1", Risk: model.RiskLow, Operations: []string{model.OpRead}, Root: "/srv/p", CreatedAt: at, UpdatedAt: at}
	if err := s.PutHandoff(h); err != nil {
		t.Fatal(err)
	}
	task := model.TaskRecord{V: 1, ID: "01a22aa4-9000-7000-8000-000000000001", HandoffID: h.ID, Status: model.TaskRunning, Root: h.Root, CreatedAt: at, UpdatedAt: at}
	if err := s.PutTask(task); err != nil {
		t.Fatal(err)
	}
	// A field of a newer build survives an update by this one.
	if err := s.Update(func(tx *Tx) error {
		return tx.PutRaw(PrefixTask, "t2", []byte(`{"v":2,"id":"t2","status":"running","future":{"x":1}}`))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateTask("t2", func(r *model.TaskRecord) error { r.Status = model.TaskInterrupted; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.Handoff(h.ID); err != nil || got.Root != "/srv/p" {
		t.Fatalf("handoff after reopen: %+v %v", got, err)
	}
	n := 0
	if err := s.Tasks(func(model.TaskRecord) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("tasks: %d %v", n, err)
	}
	raw, err := s.getRaw(PrefixTask, "t2")
	if err != nil || !contains(string(raw), `"future":{"x":1}`) || !contains(string(raw), `"interrupted"`) {
		t.Fatalf("newer field lost: %s %v", raw, err)
	}
	if _, err := s.Handoff("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing handoff: %v", err)
	}
}

func (s *Store) getRaw(prefix, id string) ([]byte, error) {
	var out []byte
	err := s.View(func(tx *Tx) error {
		var err error
		out, err = tx.GetRaw(prefix, id)
		return err
	})
	return out, err
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
