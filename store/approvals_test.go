package store

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Issue 28: an approval record (ids, command, reason, decisions, lease, outcome) survives
// reopening the store; a forgotten one is gone.
func TestApprovalRecordsSurviveReopen(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	a := model.Approval{ID: "ap-1-1", ThreadID: "th", TurnID: "t1", ItemID: "call_1", Kind: model.ApprovalCommand, Command: "touch f",
		Cwd: "/w", Reason: "needs it", Decisions: []string{model.DecisionAccept, model.DecisionCancel}, State: model.ApprovalPending,
		CreatedAt: at, ExpiresAt: at.Add(time.Minute), Lease: &model.ApprovalLease{Holder: "ci", Fence: 2, Expires: at.Add(time.Minute)}}
	b := model.Approval{ID: "ap-1-2", ThreadID: "th", Kind: model.ApprovalFileChange, State: model.ApprovalLost, Outcome: model.TurnInterrupted, Decisions: []string{}}
	for _, x := range []model.Approval{a, b} {
		if err := s.PutApproval(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteApproval(b.ID); err != nil {
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
	var got []model.Approval
	if err := s.Approvals(func(x model.Approval) error { got = append(got, x); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[0], a) {
		t.Fatalf("after reopen: %+v\nwant %+v", got, a)
	}
}
