package watch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Scenario: S000-40 (S001-13) — a thread that was not running when the runtime stopped and reached a
// terminal state during the downtime is reported with that state, even past the deadline.
// (Its turn is not one the restart cut short, so the S001-16 rule does not apply.)
func TestS000_40_StoppedDuringDowntimeRealStatusPastDeadline(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	v.sender.def = errBusy
	w := newID()
	v.reader.set(w, ThreadState{}) // idle, no turn yet
	reg := v.register(w, string(newID()), 10*time.Minute)
	v.step()
	v.want(reg.ID, model.WatchWatching, "")

	// Down for an hour; meanwhile the thread ran (elsewhere) and failed.
	v.at(time.Hour)
	v.reader.set(w, stopped("turn-9", model.TurnFailed))
	v.open()
	v.step()
	got := v.want(reg.ID, model.WatchPending, model.ResultFailed)
	if got.SourceTurn != "turn-9" || got.Reason != "" {
		t.Fatalf("stopped during downtime: %+v", got)
	}
}

// Scenario: S000-41 (S001-14) — the deadline is absolute: a thread still running after downtime that
// crossed the deadline is timedOut at the first evaluation.
func TestS000_41_StillRunningPastDeadlineAfterDowntimeTimesOut(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	v.sender.def = errBusy
	w := newID()
	v.reader.set(w, running("turn-1"))
	reg := v.register(w, string(newID()), 10*time.Minute)
	v.step()
	v.at(11 * time.Minute)
	v.open()
	v.step()
	if got := v.want(reg.ID, model.WatchPending, model.ResultTimedOut); got.SourceTurn != "turn-1" {
		t.Fatalf("timed out: %+v", got)
	}
}

// Scenario: S001-16 — a turn running when the runtime restarted is interrupted, never
// completed, even when the recovered turn reads back completed under a new id; a thread that
// cannot be reopened after the grace is interrupted too, not notFound; one still running at
// the first read is later reported by its real status.
func TestS001_16_RunningAtRestartIsInterrupted(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	v.sender.def = errBusy
	recovered, lost, still := newID(), newID(), newID()
	for _, id := range []model.ThreadID{recovered, lost, still} {
		v.reader.set(id, running("turn-"+string(id)[:4]))
	}
	a := v.register(recovered, string(newID()), time.Hour)
	b := v.register(lost, string(newID()), time.Hour)
	c := v.register(still, string(newID()), time.Hour)
	v.step()

	v.at(time.Minute)
	v.reader.set(recovered, stopped("turn-new", model.TurnCompleted))
	v.reader.fail(lost, model.Errorf(model.CodeThreadNotFound, "check", "no thread %s", lost))
	v.open()
	v.step()
	got := v.want(a.ID, model.WatchPending, model.ResultInterrupted)
	if got.SourceTurn != a.RunningTurn || !strings.Contains(got.Reason, "restarted") || !strings.Contains(got.Reason, "completed") || !strings.Contains(got.Reason, "turn-new") {
		t.Fatalf("recovered as completed: %+v", got)
	}
	v.want(b.ID, model.WatchWatching, "")
	v.want(c.ID, model.WatchWatching, "")

	// Still unopenable when the grace ends: interrupted, with the reason.
	v.at(time.Minute + model.RestartGrace - time.Second)
	v.step()
	v.want(b.ID, model.WatchWatching, "")
	v.at(time.Minute + model.RestartGrace)
	v.step()
	if got := v.want(b.ID, model.WatchPending, model.ResultInterrupted); !strings.Contains(got.Reason, "could not be reopened") || got.SourceTurn != b.RunningTurn {
		t.Fatalf("unopenable after the grace: %+v", got)
	}

	// Running at the first read after the restart: its later stop is reported as it is.
	v.reader.set(still, stopped(c.RunningTurn, model.TurnCompleted))
	v.e.OnEvent(still, model.ThreadIdle, model.TurnCompleted)
	v.step()
	if got := v.want(c.ID, model.WatchPending, model.ResultCompleted); got.SourceTurn != c.RunningTurn || got.Reason != "" {
		t.Fatalf("stopped after the first read: %+v", got)
	}
}

// Scenario: S000-42 (S001-15) — within the restart grace failed reads settle nothing (no timedOut,
// unreadable or notFound) and do not spin the engine on a passed deadline; a restored
// notification waits for its recipient until the grace is over.
func TestS000_42_RestartGraceSettlesNothing(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	v.sender.def = errBusy
	w, r := newID(), newID()
	v.reader.set(w, ThreadState{}) // idle, no turn yet: not the S001-16 case
	reg := v.register(w, string(newID()), time.Minute)
	v.reader.set(r, running("turn-r"))
	p := v.register(r, string(w), time.Hour) // w is also the recipient of r's notification
	v.reader.set(r, stopped("turn-r", model.TurnCompleted))
	v.e.OnEvent(r, model.ThreadIdle, model.TurnCompleted)
	v.step()
	v.want(p.ID, model.WatchPending, model.ResultCompleted)

	// Restart past the deadline; the session owning w is not back yet.
	start := 2 * time.Minute
	v.at(start)
	v.reader.fail(w, errors.New("session not registered"))
	v.sender.failTo(string(w), harness.NotStarted(model.Errorf(model.CodeThreadNotFound, "check", "no thread %s", w)))
	v.open()

	// On a frozen clock the passed deadline must not make the engine read in a loop: Run
	// sleeps until the time Step returns, so a time at or just after now would spin it.
	before := v.reader.reads.Load()
	now := v.clock.Now()
	next := v.e.Step(context.Background())
	if n := v.reader.reads.Load() - before; n > 5 {
		t.Fatalf("%d reads in one step on a frozen clock during the grace", n)
	}
	if next.IsZero() || next.Sub(now) < time.Second {
		t.Fatalf("during the grace the engine asks to run again %v after now (at %v)", next.Sub(now), next)
	}
	v.want(reg.ID, model.WatchWatching, "")
	if got := v.want(p.ID, model.WatchPending, model.ResultCompleted); got.Reason != "" {
		t.Fatalf("restored notification during the grace: %+v", got)
	}
	v.at(start + model.RestartGrace - time.Second)
	v.step()
	v.want(reg.ID, model.WatchWatching, "")
	v.want(p.ID, model.WatchPending, model.ResultCompleted)

	// The grace is over: the failing read past the deadline settles at once, and the restored
	// notification to the missing recipient is given up.
	v.at(start + model.RestartGrace)
	v.step()
	v.want(reg.ID, model.WatchPending, model.ResultTimedOut)
	v.at(start + 6*time.Minute)
	v.step()
	if got := v.want(p.ID, model.WatchUndeliverable, model.ResultCompleted); !strings.Contains(got.Reason, "no longer exists") {
		t.Fatalf("restored notification after the grace: %+v", got)
	}
}

// Scenario: S000-42 (S001-15) — with reads failing since the restart, `unreadable` comes 60 s after the
// 5-minute grace expired, whenever the reads happened.
func TestS000_42_UnreadableCountsFromGraceExpiry(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	v.sender.def = errBusy
	w := newID()
	v.reader.set(w, ThreadState{})
	reg := v.register(w, string(newID()), time.Hour)
	v.step()

	v.reader.fail(w, errors.New("session not registered"))
	v.open() // restart at t0
	v.step()
	v.at(4*time.Minute + 30*time.Second)
	v.step()
	v.at(5*time.Minute + 30*time.Second) // the first read after the grace
	v.step()
	v.want(reg.ID, model.WatchWatching, "")
	v.at(5*time.Minute + 59*time.Second)
	v.step()
	v.want(reg.ID, model.WatchWatching, "")
	v.at(6 * time.Minute)
	v.step()
	v.want(reg.ID, model.WatchPending, model.ResultUnreadable)
}

// Scenario: S000-35 (S001-08) — a new notification to a recipient that is gone is given up at
// once, even in the first minutes of a runtime: the restart grace is for restored ones only.
func TestS000_35_NewNotificationToGoneRecipientGivenUpAtOnce(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	w, r := newID(), newID()
	v.reader.set(w, running("turn-1"))
	reg := v.register(w, string(r), time.Hour)
	v.sender.def = harness.NotStarted(model.Errorf(model.CodeThreadNotFound, "check", "no thread %s", r))
	v.reader.set(w, stopped("turn-1", model.TurnCompleted))
	v.e.OnEvent(w, model.ThreadIdle, model.TurnCompleted)
	v.step()
	v.want(reg.ID, model.WatchUndeliverable, model.ResultCompleted)
}

// Scenario: S000-44 (S001-18) — a delivery that had started when the runtime died is due again after the
// restart; the text reports status and link only.
func TestS000_44_DeliveringIsDeliveredAgainAfterRestart(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	w, r := newID(), newID()
	rec := model.Watch{V: 1, ID: uuid.NewString(), Thread: w, Notify: string(r), State: model.WatchDelivering,
		RegisteredAt: t0, Deadline: t0.Add(time.Hour), Result: model.ResultCompleted, SourceTurn: "turn-7",
		DueAt: t0.Add(time.Minute), Attempts: 1, UpdatedAt: t0.Add(time.Minute)}
	if err := v.st.PutWatch(rec); err != nil {
		t.Fatal(err)
	}
	v.at(2 * time.Minute)
	v.open()
	v.want(rec.ID, model.WatchPending, model.ResultCompleted)
	v.step()
	calls := v.sender.sent()
	if len(calls) != 1 || calls[0].recipient != r {
		t.Fatalf("sends after the restart: %+v", calls)
	}
	if want := Text([]model.Watch{rec}); calls[0].text != want {
		t.Fatalf("text %q, want %q", calls[0].text, want)
	}
	for _, s := range []string{w.Link(), "completed", "turn-7", "not been reviewed"} {
		if !strings.Contains(calls[0].text, s) {
			t.Fatalf("text %q lacks %q", calls[0].text, s)
		}
	}
	if _, in := v.find(rec.ID); in != "" {
		t.Fatalf("redelivered watch still in %s", in)
	}
	n := 0
	if err := v.st.Watches(func(model.Watch) error { n++; return nil }); err != nil || n != 0 {
		t.Fatalf("%d watches left in the store (%v)", n, err)
	}
}

// Threads this runtime runs report every change as an event, so their reconciliation read is
// rare; threads of other processes are re-read at the normal rate.
func TestReconciliationRateFollowsOwnership(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	owned, foreign := newID(), newID()
	ownedState := running("turn-owned")
	ownedState.Owned = true
	v.reader.set(owned, ownedState)
	v.reader.set(foreign, running("turn-foreign"))
	v.register(owned, string(newID()), time.Hour)
	v.register(foreign, string(newID()), time.Hour)
	v.step() // first reads after registration
	base := v.reader.reads.Load()

	v.at(ReconcileEvery + time.Second)
	v.step()
	if got := v.reader.reads.Load() - base; got != 1 {
		t.Fatalf("after %s: %d reads, want 1 (only the foreign thread)", ReconcileEvery, got)
	}
	v.at(OwnedReconcileEvery + time.Second)
	v.step()
	if got := v.reader.reads.Load() - base; got != 3 {
		t.Fatalf("after %s: %d reads, want 3 (foreign again, owned once)", OwnedReconcileEvery, got)
	}
}
