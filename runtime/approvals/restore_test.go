package approvals

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// memStore is what the runtime's store does for a registry: the latest state of each id.
type memStore struct {
	mu   sync.Mutex
	recs map[string]model.Approval
}

func (m *memStore) put(a model.Approval) { m.mu.Lock(); m.recs[a.ID] = a; m.mu.Unlock() }
func (m *memStore) get(id string) model.Approval {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recs[id]
}
func (m *memStore) del(id string) { m.mu.Lock(); delete(m.recs, id); m.mu.Unlock() }
func (m *memStore) all() []model.Approval {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []model.Approval
	for _, a := range m.recs {
		out = append(out, a)
	}
	return out
}

// Issue 28 (takeover): every change is persisted; a new registry on the records lists the
// decided ones as they were and the pending one as lost, and Codex asking the same item again
// makes it pending anew under its id; an outcome is recorded once.
func TestApprovalsSurviveARestartPendingOnesLost(t *testing.T) {
	st := &memStore{recs: map[string]model.Approval{}}
	opts := Options{Persist: st.put, Forget: st.del}
	r, _ := newRegistry(opts)
	a, got := ask(t, r, "th")
	if _, err := r.Answer(a.ID, "ci", model.DecisionDecline, 0); err != nil {
		t.Fatal(err)
	}
	<-got
	b, _ := ask(t, r, "th2")
	if _, err := r.Take(b.ID, "ci"); err != nil {
		t.Fatal(err)
	}
	if rec := st.get(b.ID); rec.State != model.ApprovalPending || rec.Lease == nil || rec.Lease.Fence != 1 || rec.Command != "touch f" {
		t.Fatalf("persisted pending %+v", rec)
	}

	var events []model.Approval
	r2, _ := newRegistry(Options{Persist: st.put, Forget: st.del, OnChange: func(a model.Approval) { events = append(events, a) }})
	lost := r2.Restore(st.all())
	if len(lost) != 1 || lost[0].ID != b.ID {
		t.Fatalf("lost %+v", lost)
	}
	if got, _ := r2.Get(a.ID); got.State != model.ApprovalAnswered || got.Decision != model.DecisionDecline || got.DecidedBy != "ci" {
		t.Fatalf("decided after restore %+v", got)
	}
	got2, _ := r2.Get(b.ID)
	if got2.State != model.ApprovalLost || got2.Lease != nil || got2.DecidedBy != byRestart || st.get(b.ID).State != model.ApprovalLost {
		t.Fatalf("pending after restore %+v (stored %+v)", got2, st.get(b.ID))
	}
	if len(events) != 1 || events[0].State != model.ApprovalLost {
		t.Fatalf("events %+v", events)
	}
	if _, err := r2.Answer(b.ID, "ci", model.DecisionAccept, 0); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("answering a lost approval: %v", err)
	}
	if !r2.SetOutcome(b.ID, model.TurnInterrupted) || r2.SetOutcome(b.ID, model.TurnCompleted) {
		t.Fatal("the outcome is set once")
	}
	if rec := st.get(b.ID); rec.Outcome != model.TurnInterrupted {
		t.Fatalf("stored outcome %+v", rec)
	}
}

// Codex asking again the item of a lost approval (after the thread is resumed) reopens it:
// same id, pending, reasked, and answerable.
func TestLostApprovalAskedAgainIsPendingUnderItsID(t *testing.T) {
	r, _ := newRegistry(Options{})
	old := model.Approval{ID: "ap-1-1", ThreadID: "th", TurnID: "t1", ItemID: "call_1", Kind: model.ApprovalCommand,
		State: model.ApprovalPending, Decisions: []string{model.DecisionAccept}, CreatedAt: time.Now()}
	r.Restore([]model.Approval{old})
	got := make(chan string, 1)
	go func() {
		got <- r.Ask(context.Background(), model.Approval{ThreadID: "th", TurnID: "t1", ItemID: "call_1", Kind: model.ApprovalCommand,
			Decisions: []string{model.DecisionAccept}})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for a, _ := r.Get(old.ID); a.State != model.ApprovalPending; a, _ = r.Get(old.ID) {
		if time.Now().After(deadline) {
			t.Fatalf("never asked again: %+v", a)
		}
		time.Sleep(time.Millisecond)
	}
	if a, _ := r.Get(old.ID); !a.Reasked || len(r.List(nil)) != 1 {
		t.Fatalf("asked again: %+v, listed %d", a, len(r.List(nil)))
	}
	if _, err := r.Answer(old.ID, "ci", model.DecisionAccept, 0); err != nil {
		t.Fatal(err)
	}
	if d := <-got; d != model.DecisionAccept {
		t.Fatalf("Codex got %q", d)
	}
}

// The App Server going away (its request's context ends) loses the approval: no decision
// reached Codex, and none is recorded.
func TestAppServerGoneLosesTheApproval(t *testing.T) {
	r, _ := newRegistry(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 1)
	go func() { got <- r.Ask(ctx, model.Approval{ThreadID: "th", Kind: model.ApprovalCommand}) }()
	for len(r.List(nil)) == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-got
	if a := r.List(nil)[0]; a.State != model.ApprovalLost || a.Decision != "" || a.DecidedBy != byAppServer || r.Waiting("th") {
		t.Fatalf("%+v", a)
	}
}
