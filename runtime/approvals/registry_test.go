package approvals

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newRegistry(opts Options) (*Registry, *clock) {
	c := &clock{t: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	opts.Now = c.now
	return New(opts), c
}

// ask starts an Ask and returns the pending approval and the channel of its decision.
func ask(t *testing.T, r *Registry, thread string) (model.Approval, <-chan string) {
	t.Helper()
	got := make(chan string, 1)
	seen := map[string]bool{}
	for _, a := range r.List(nil) {
		seen[a.ID] = true
	}
	go func() {
		got <- r.Ask(context.Background(), model.Approval{ThreadID: thread, Kind: model.ApprovalCommand, Command: "touch f",
			Decisions: []string{model.DecisionAccept, model.DecisionCancel}})
	}()
	for i := 0; i < 5000; i++ {
		for _, a := range r.List(nil) {
			if !seen[a.ID] {
				return a, got
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the approval never appeared")
	return model.Approval{}, nil
}

func TestAnswerReachesTheAskingTurn(t *testing.T) {
	r, _ := newRegistry(Options{})
	a, got := ask(t, r, "th")
	if _, err := r.Answer(a.ID, "bot", model.DecisionAccept, 0); err != nil {
		t.Fatal(err)
	}
	if d := <-got; d != model.DecisionAccept {
		t.Fatalf("Codex got %q", d)
	}
	done, _ := r.Get(a.ID)
	if done.State != model.ApprovalAnswered || done.DecidedBy != "bot" || done.DecidedAt == nil {
		t.Fatalf("recorded %+v", done)
	}
	if _, err := r.Answer(a.ID, "other", model.DecisionDecline, 0); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("a second answer: %v", err)
	}
}

// A decision not offered is refused; decline always works although Codex lists it not.
func TestOnlyOfferedDecisions(t *testing.T) {
	r, _ := newRegistry(Options{})
	a, got := ask(t, r, "th")
	if _, err := r.Answer(a.ID, "bot", model.DecisionAcceptForSession, 0); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("acceptForSession not offered: %v", err)
	}
	if _, err := r.Answer(a.ID, "bot", model.DecisionDecline, 0); err != nil {
		t.Fatal(err)
	}
	if d := <-got; d != model.DecisionDecline {
		t.Fatalf("Codex got %q", d)
	}
}

// A decision under a lease since taken over is refused and changes nothing; the operator can
// always take the lease, others wait for it to expire.
func TestStaleFenceIsRefused(t *testing.T) {
	r, clk := newRegistry(Options{})
	a, got := ask(t, r, "th")
	first, err := r.Take(a.ID, "bot")
	if err != nil || first.Lease.Fence != 1 {
		t.Fatalf("take: %+v %v", first.Lease, err)
	}
	if _, err := r.Take(a.ID, "other"); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("another client took a live lease: %v", err)
	}
	op, err := r.Take(a.ID, HolderOperator)
	if err != nil || op.Lease.Fence != 2 {
		t.Fatalf("operator take: %+v %v", op.Lease, err)
	}
	if _, err := r.Answer(a.ID, "bot", model.DecisionAccept, 1); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("a stale fence was taken: %v", err)
	}
	if st, _ := r.Get(a.ID); st.State != model.ApprovalPending {
		t.Fatalf("the stale decision changed the approval: %+v", st)
	}
	clk.advance(DefaultLease)
	if _, err := r.Answer(a.ID, HolderOperator, model.DecisionAccept, 2); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("an expired lease answered: %v", err)
	}
	late, err := r.Take(a.ID, "other")
	if err != nil || late.Lease.Fence != 3 {
		t.Fatalf("take after expiry: %+v %v", late.Lease, err)
	}
	if _, err := r.Answer(a.ID, "other", model.DecisionCancel, 3); err != nil {
		t.Fatal(err)
	}
	if d := <-got; d != model.DecisionCancel {
		t.Fatalf("Codex got %q", d)
	}
}

// Two clients answering at once: exactly one wins.
func TestRacingAnswersOneWins(t *testing.T) {
	r, _ := newRegistry(Options{})
	for round := 0; round < 50; round++ {
		a, got := ask(t, r, "th")
		var wg sync.WaitGroup
		wins := make(chan string, 2)
		for _, who := range []string{"a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := r.Answer(a.ID, who, model.DecisionAccept, 0); err == nil {
					wins <- who
				}
			}()
		}
		wg.Wait()
		close(wins)
		n := 0
		for range wins {
			n++
		}
		if n != 1 {
			t.Fatalf("round %d: %d answers won", round, n)
		}
		<-got
	}
}

// Nobody answers: at the deadline the default decision (decline) goes to Codex, recorded as
// decided by timeout.
func TestExpiryDeclines(t *testing.T) {
	r, clk := newRegistry(Options{Timeout: 5 * time.Minute})
	a, got := ask(t, r, "th")
	clk.advance(5*time.Minute - time.Second)
	r.Sweep()
	if st, _ := r.Get(a.ID); st.State != model.ApprovalPending {
		t.Fatalf("expired early: %+v", st)
	}
	clk.advance(time.Second)
	r.Sweep()
	if d := <-got; d != model.DecisionDecline {
		t.Fatalf("Codex got %q", d)
	}
	if st, _ := r.Get(a.ID); st.State != model.ApprovalExpired || st.DecidedBy != "timeout" {
		t.Fatalf("recorded %+v", st)
	}
}

// A configured owner: other clients cannot take the lease; the operator can.
func TestOwnerPolicy(t *testing.T) {
	r, _ := newRegistry(Options{Policy: func() (string, time.Duration) { return "ops", 0 }})
	a, got := ask(t, r, "th")
	if _, err := r.Answer(a.ID, "bot", model.DecisionAccept, 0); !model.IsCode(err, model.CodePermissionDenied) {
		t.Fatalf("a client other than the owner answered: %v", err)
	}
	if _, err := r.Answer(a.ID, "ops", model.DecisionAccept, 0); err != nil {
		t.Fatal(err)
	}
	<-got
}

// A turn that ends first resolves its thread's approvals; others stay.
func TestThreadStoppedResolves(t *testing.T) {
	r, _ := newRegistry(Options{})
	a, got := ask(t, r, "th")
	b, _ := ask(t, r, "other")
	r.ThreadStopped("th")
	if d := <-got; d != model.DecisionCancel {
		t.Fatalf("Codex got %q", d)
	}
	if st, _ := r.Get(a.ID); st.State != model.ApprovalResolved {
		t.Fatalf("%+v", st)
	}
	if st, _ := r.Get(b.ID); st.State != model.ApprovalPending {
		t.Fatalf("another thread's approval: %+v", st)
	}
}
