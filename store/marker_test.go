package store

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Scenario: S002-08 — the audit of each block survives a restart and holds no content.
func TestMarkerAuditChildrenAndRunsSurviveRestart(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)
	audits := []model.MarkerAudit{
		{ID: "0001", Author: parentID, Turn: "t1", Seq: 1, Tool: "task-create", Info: "task-create", Created: childID, Decision: "accepted", ParsedAt: at, DecidedAt: at},
		{ID: "0002", Author: parentID, Turn: "t1", Seq: 2, Tool: "task-cancel", Info: "task_cancel", Targets: []string{"x"}, Decision: "rejected", Code: "not_found", ParsedAt: at, DecidedAt: at},
	}
	if err := s.PutMarkerAudits(audits); err != nil {
		t.Fatal(err)
	}
	if err := s.PutMarkerChild(model.MarkerChild{Child: childID, Parent: parentID, Turn: "t1", Generation: 1, CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	run := model.MarkerRun{ID: "r1", Author: parentID, Turn: "t1", State: model.MarkerRunning, StartedAt: at, UpdatedAt: at,
		Outcomes: []model.MarkerOutcome{{Seq: 1, Tool: "task-poll", Name: "secret name", Views: []model.MarkerView{{ID: "x", Result: "secret output"}}}},
		Pending:  []model.MarkerPending{{Seq: 3, Tool: "wait-threads", Targets: []string{"a"}, Interval: time.Second, Deadline: at.Add(time.Hour), Chars: 200}}}
	if err := s.PutMarkerRun(run); err != nil {
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
	got, err := s.MarkerAudits(parentID)
	if err != nil || len(got) != 2 || got[1].Code != "not_found" || got[0].Created != childID {
		t.Fatalf("audits %+v %v", got, err)
	}
	if c, err := s.MarkerChild(childID); err != nil || c.Generation != 1 || c.Parent != parentID {
		t.Fatalf("child %+v %v", c, err)
	}
	if n, err := s.MarkerChildren(parentID); err != nil || n != 1 {
		t.Fatalf("children %d %v", n, err)
	}
	var runs []model.MarkerRun
	if err := s.MarkerRuns(func(r model.MarkerRun) error { runs = append(runs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || !runs[0].Pending[0].Deadline.Equal(at.Add(time.Hour)) {
		t.Fatalf("runs %+v", runs)
	}
	// Names and results are content: never in the record.
	var raw string
	_ = s.Scan(PrefixMarkerRun, func(_ string, b []byte) error { raw = string(b); return nil })
	if strings.Contains(raw, "secret") {
		t.Fatalf("content stored: %s", raw)
	}

	// Reporting queues the notification once; a second report of the same run queues nothing.
	w := model.Watch{V: 1, ID: "w1", Thread: parentID, Notify: string(parentID), State: model.WatchPending, RegisteredAt: at, UpdatedAt: at}
	if err := s.ReportMarkerRun(runs[0], w); err != nil {
		t.Fatal(err)
	}
	if err := s.ReportMarkerRun(runs[0], model.Watch{V: 1, ID: "w2", Notify: string(parentID)}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second report: %v", err)
	}
	n := 0
	_ = s.Watches(func(model.Watch) error { n++; return nil })
	if n != 1 {
		t.Fatalf("%d watches queued", n)
	}
}
