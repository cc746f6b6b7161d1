package watch_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/watch"
)

// These tests make the engine evaluate at once after the clock moved (advance) or run one pass
// to its end (step), so they can assert what has not happened yet.

// Scenario: S000-29 (S001-02)
func TestWatchS000_29_AlreadyTerminalRegistersAndSendsNothing(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	r := w.idle()
	done := w.idle()
	failed := w.startThread("wgate", "this one fails @fail", "")
	w.waitStopped(failed.id)
	cancelled := w.gated("")
	hosttest.Call[api.ThreadCancelResult](t, w.rt(), api.MethodThreadCancel, api.ThreadCancelParams{Thread: cancelled.id})
	w.waitStopped(cancelled.id)

	for _, c := range []struct {
		th     wThread
		status string
		notify string
		caller *api.Client
	}{
		{done, model.TurnCompleted, r.id, w.rt()},
		{failed, model.TurnFailed, r.id, w.rt()},
		{cancelled, model.TurnInterrupted, "", w.Client("bot")},
	} {
		res := w.watch(c.caller, api.ThreadWatchParams{Thread: c.th.id, Notify: c.notify})
		if res.State != "alreadyTerminal" || res.Status != c.status || res.SourceTurn != c.th.turn || res.Watch != nil {
			t.Fatalf("watch on a %s thread: %+v", c.status, res)
		}
	}
	w.advance(time.Hour)
	w.step()
	if l := w.watches(); len(l.Watching)+len(l.Pending)+len(l.Undeliverable) != 0 {
		t.Fatalf("watches after alreadyTerminal: %+v", l)
	}
	if n := w.storedWatches(); n != 0 {
		t.Fatalf("%d watch records stored", n)
	}
	if msgs := w.userMessages(r.id); len(msgs) != 1 {
		t.Fatalf("the recipient got a turn: %q", msgs)
	}
	if evs := w.events("bot", "", 100).Events; len(evs) != 0 {
		t.Fatalf("the client got events: %+v", evs)
	}
}

// Scenario: S000-31 (S001-04) — completed, failed, interrupted and timedOut, each naming its
// source turn. unreadable and notFound need a thread this runtime has not loaded yet: see
// TestWatchS000_42_ReadFailuresAfterRestart.
func TestWatchS000_31_ResultsNameTheirSourceTurn(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	bot := w.Client("bot")
	completes, fails, cancelled, slow := w.gated(""), w.gated("@fail"), w.gated(""), w.gated("")
	ids := map[string]string{}
	for _, th := range []wThread{completes, fails, cancelled} {
		ids[th.id] = w.watching(bot, api.ThreadWatchParams{Thread: th.id}).ID
	}
	ids[slow.id] = w.watching(bot, api.ThreadWatchParams{Thread: slow.id, TimeoutMs: 1000}).ID

	w.openGate(completes)
	w.openGate(fails)
	hosttest.Call[api.ThreadCancelResult](t, w.rt(), api.MethodThreadCancel, api.ThreadCancelParams{Thread: cancelled.id})
	for th, result := range map[wThread]string{completes: model.ResultCompleted, fails: model.ResultFailed, cancelled: model.ResultInterrupted} {
		ev := w.event("bot", ids[th.id])
		if ev.Result != result || ev.Turn != th.turn || ev.Thread != model.ThreadID(th.id) || ev.Link != "codex://threads/"+th.id {
			t.Fatalf("%s: event %+v, want result %s of turn %s", th.id, ev, result, th.turn)
		}
	}

	// The deadline passes while the thread still runs.
	w.step()
	if _, in := w.find(ids[slow.id]); in != model.WatchWatching {
		t.Fatalf("before the deadline the watch is %q", in)
	}
	w.advance(time.Second)
	ev := w.event("bot", ids[slow.id])
	if ev.Result != model.ResultTimedOut || ev.Turn != slow.turn {
		t.Fatalf("timed out: %+v", ev)
	}
	if !w.running(slow.id) {
		t.Fatal("the timed-out thread is not running")
	}
}

// Scenario: S000-33 (S001-06)
func TestWatchS000_33_DedupeKeepsDeadlineAndNextStopGetsANewWatch(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, th := w.gated(""), w.gated("")
	rt := w.rt()
	first := w.watching(rt, api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id, TimeoutMs: 10 * 60 * 1000})
	w.advance(time.Minute)
	again := w.watch(rt, api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id, TimeoutMs: 20 * 60 * 1000})
	if !again.Existing || again.Watch.ID != first.ID || !again.Watch.Deadline.Equal(first.Deadline) || !first.Deadline.Equal(wT0.Add(10*time.Minute)) {
		t.Fatalf("second registration while watching: %+v (first %+v)", again, first)
	}

	// It stops while the recipient is busy: the notification waits.
	firstTurn := th.turn
	w.openGate(th)
	w.waitStopped(th.id)
	w.waitPending(first.ID)
	// It runs again: a registration now watches for the next stop.
	w.rerun(&th)
	next := w.watch(rt, api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	if next.State != model.WatchWatching || next.Existing || next.Watch.ID == first.ID {
		t.Fatalf("registration for the next stop: %+v", next)
	}
	if p, in := w.find(first.ID); in != model.WatchPending || p.SourceTurn != firstTurn {
		t.Fatalf("the pending notification after the new registration: %q %+v", in, p)
	}
	w.openGate(th)
	w.waitPending(next.Watch.ID)
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("busy recipient got a turn: %q", got)
	}

	// Both are delivered, in one turn, once the recipient is free.
	w.openGate(rcpt)
	msgs := w.waitUserMessages(rcpt.id, 2)
	if !strings.Contains(msgs[1], firstTurn) || !strings.Contains(msgs[1], th.turn) {
		t.Fatalf("merged notification %q lacks turn %s or %s", msgs[1], firstTurn, th.turn)
	}
	if l := w.watches(); len(l.Watching)+len(l.Pending)+len(l.Undeliverable) != 0 {
		t.Fatalf("watches after delivery: %+v", l)
	}
}

// Scenario: S000-34 (S001-07)
func TestWatchS000_34_BusyRecipientPendingRetriedAndMerged(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, a, b := w.gated(""), w.gated(""), w.gated("")
	rt := w.rt()
	wa := w.watching(rt, api.ThreadWatchParams{Thread: a.id, Notify: rcpt.id})
	wb := w.watching(rt, api.ThreadWatchParams{Thread: b.id, Notify: rcpt.id})

	w.openGate(a)
	p := w.waitPending(wa.ID)
	if p.Attempts != 1 || p.Result != model.ResultCompleted || !p.NextAttempt.Equal(wT0.Add(watch.BusyRetry)) {
		t.Fatalf("after THREAD_BUSY: %+v", p)
	}
	// `thread send` itself refuses rather than queue.
	wCallErr(t, rt, api.MethodThreadSend, api.ThreadSendParams{Thread: rcpt.id, Message: "queued?"}, model.CodeThreadBusy)

	w.openGate(b)
	w.waitPending(wb.ID)
	// BusyRetry passes with the recipient still busy: retried, still pending, nothing sent.
	w.advance(watch.BusyRetry)
	wEventually(t, "the retry after BusyRetry", func() bool {
		p, _ = w.find(wa.ID)
		return p.Attempts >= 2 && p.State == model.WatchPending
	})
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("busy recipient got turns: %q", got)
	}

	// Its stop triggers one delivery of both.
	w.openGate(rcpt)
	msgs := w.waitUserMessages(rcpt.id, 2)
	for _, id := range []string{a.id, b.id} {
		if !strings.Contains(msgs[1], "codex://threads/"+id) {
			t.Fatalf("merged notification %q lacks %s", msgs[1], id)
		}
	}
	if strings.Contains(msgs[1], "queued?") {
		t.Fatal("the refused message was queued")
	}
}

// Scenario: S000-35 (S001-08) — the recipient's working directory is missing, so its command
// cannot start: no turn started, and the notification is retried until it goes through.
func TestWatchS000_35_NotStartedDeliveryIsRetried(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	// Long after the runtime started: no restart grace can be what keeps it pending.
	w.advance(model.RestartGrace + time.Minute)
	dir := filepath.Join(w.gates, "rcpt-cwd")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	rcpt := w.startThread("wgate", "recipient task", dir)
	w.waitStopped(rcpt.id)
	th := w.gated("")
	reg := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})

	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	w.openGate(th)
	p, in := w.settled(reg.ID)
	if in != model.WatchPending || p.Reason != "" || !p.NextAttempt.After(w.clock.Now()) {
		t.Fatalf("after a delivery that could not start: %q %+v", in, p)
	}
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("a turn was recorded: %q", got)
	}

	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.advance(p.NextAttempt.Sub(w.clock.Now()))
	msgs := w.waitUserMessages(rcpt.id, 2)
	if !strings.Contains(msgs[1], th.id) {
		t.Fatalf("notification %q", msgs[1])
	}
}

// Scenario: S000-37 (S001-10), S000-35 — a missing recipient is given up at once; `thread
// watches` keeps the latest 50 undeliverable records, also across a restart.
func TestWatchS000_37_GoneRecipientsAndTheLatest50(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	var rcpts []string
	for range 55 {
		rcpts = append(rcpts, w.startThread("wgate", w.nextName("short-lived recipient "), "").id)
	}
	for _, id := range rcpts {
		w.waitStopped(id)
	}
	// The recipients' conversations are deleted while the runtime is down.
	w.restart(func() {
		for _, id := range rcpts {
			if err := os.Remove(w.transcriptPath(id)); err != nil {
				t.Fatal(err)
			}
		}
	})
	rt := w.rt()
	older, newer := w.gated(""), w.gated("")
	for _, id := range rcpts[:5] {
		w.watching(rt, api.ThreadWatchParams{Thread: older.id, Notify: id})
	}
	w.openGate(older)
	wEventually(t, "5 undeliverable", func() bool { return len(w.watches().Undeliverable) == 5 })

	w.advance(time.Second)
	for _, id := range rcpts[5:] {
		w.watching(rt, api.ThreadWatchParams{Thread: newer.id, Notify: id})
	}
	w.openGate(newer)
	check := func(when string) {
		t.Helper()
		l := w.watches()
		if len(l.Undeliverable) != model.UndeliverableKept || len(l.Watching)+len(l.Pending) != 0 {
			t.Fatalf("%s: %d undeliverable, %d watching, %d pending", when, len(l.Undeliverable), len(l.Watching), len(l.Pending))
		}
		var notified []string
		for _, u := range l.Undeliverable {
			if u.Thread != model.ThreadID(newer.id) || u.State != model.WatchUndeliverable || !strings.Contains(u.Reason, "no longer exists") || u.Result != model.ResultCompleted {
				t.Fatalf("%s: kept %+v", when, u)
			}
			notified = append(notified, u.Notify)
		}
		slices.Sort(notified)
		want := slices.Clone(rcpts[5:])
		slices.Sort(want)
		if !slices.Equal(notified, want) {
			t.Fatalf("%s: the kept records are not the latest 50", when)
		}
	}
	wEventually(t, "the newer 50 undeliverable", func() bool {
		l := w.watches()
		return len(l.Pending)+len(l.Watching) == 0 && len(l.Undeliverable) == model.UndeliverableKept && l.Undeliverable[len(l.Undeliverable)-1].Thread == model.ThreadID(newer.id)
	})
	check("before the restart")
	w.restart(nil)
	check("after the restart")
	if n := w.storedWatches(); n != model.UndeliverableKept {
		t.Fatalf("%d watch records stored, want %d", n, model.UndeliverableKept)
	}
}

// Scenario: S000-37 (S001-10), S000-34 — a recipient busy for more than 6 hours after the
// stop: retried meanwhile, then undeliverable with the reason; never delivered while busy.
func TestWatchS000_37_BusyForSixHoursIsUndeliverable(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt, th := w.gated(""), w.gated("")
	reg := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	w.openGate(th)
	w.waitPending(reg.ID)
	w.advance(model.DeliveryWindow)
	wEventually(t, "a retry at 6 h", func() bool { p, _ := w.find(reg.ID); return p.Attempts >= 2 && p.State == model.WatchPending })
	// The next retry finds the window over.
	w.advance(watch.BusyRetry)
	u := w.waitIn(reg.ID, model.WatchUndeliverable)
	if !strings.Contains(u.Reason, "6 hours") || u.Result != model.ResultCompleted {
		t.Fatalf("undeliverable %+v", u)
	}
	if got := w.userMessages(rcpt.id); len(got) != 1 {
		t.Fatalf("busy recipient got a turn: %q", got)
	}
}
