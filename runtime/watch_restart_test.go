package runtime

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Restart tests close the runtime and open a new one on the same home. External turns die
// with the runtime (they end interrupted), so a watch that must survive a restart still
// watching is put on a thread that never got a turn.

// Scenario: S000-39 (S001-12)
func TestWatchS000_39_RestartKeepsWatchesAsRegistered(t *testing.T) {
	t.Parallel()
	hs := wHarnesses()
	hs["wlate"] = config.Harness{Command: []string{"/nonexistent/codexhost-wlate"}}
	w := wNewHost(t, wHostOptions{harnesses: hs})
	th := w.turnlessOn("wlate")
	r := w.idle()
	toThread := w.watching(w.rt(), api.ThreadWatchParams{Thread: th, Notify: r.id, TimeoutMs: 3 * 3600 * 1000})
	w.advance(time.Minute)
	toClient := w.watching(w.client("bot"), api.ThreadWatchParams{Thread: th, TimeoutMs: 3 * 3600 * 1000})
	before, _ := json.Marshal(w.watches())

	// Down for an hour; meanwhile the harness gets a command that works.
	w.restart(func() {
		w.clock.Advance(time.Hour)
		w.setHarness("wlate", &config.Harness{Command: []string{"sh", "-c", wGateCmd}})
	})
	w.step()
	after, _ := json.Marshal(w.watches())
	if string(after) != string(before) {
		t.Fatalf("watches changed across the restart:\nbefore %s\nafter  %s", before, after)
	}
	got, in := w.find(toThread.ID)
	if in != model.WatchWatching || !got.RegisteredAt.Equal(wT0) || !got.Deadline.Equal(wT0.Add(3*time.Hour)) || got.Notify != r.id {
		t.Fatalf("restored %q %+v", in, got)
	}

	// The thread runs and stops now: both are notified without registering again.
	res := call[api.ThreadSendResult](t, w.rt(), api.MethodThreadSend, api.ThreadSendParams{Thread: th, Message: "now it runs"})
	if ev := w.event("bot", toClient.ID); ev.Result != model.ResultCompleted || ev.Turn != res.TurnID {
		t.Fatalf("client event %+v", ev)
	}
	msgs := w.waitUserMessages(r.id, 2)
	if !strings.Contains(msgs[1], th) || !strings.Contains(msgs[1], res.TurnID) {
		t.Fatalf("notification %q", msgs[1])
	}
}

// Scenario: S000-41 (S001-14) — downtime counts: a deadline passed while the runtime was
// down times out at once, and a notification due before the downtime is given up when the
// 6 h window ended during it.
func TestWatchS000_41_DowntimeCountsTowardDeadlineAndWindow(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	idle := w.turnless()
	timed := w.watching(w.client("bot"), api.ThreadWatchParams{Thread: idle, TimeoutMs: 10 * 60 * 1000})
	rcpt, th := w.gated(""), w.gated("")
	due := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	w.openGate(th)
	w.waitPending(due.ID)
	w.step()
	if _, in := w.find(timed.ID); in != model.WatchWatching {
		t.Fatalf("before the downtime: %q", in)
	}

	w.restart(func() { w.clock.Advance(model.DeliveryWindow + time.Minute) })
	if ev := w.event("bot", timed.ID); ev.Result != model.ResultTimedOut || !strings.Contains(ev.Reason, "deadline") {
		t.Fatalf("deadline passed during the downtime: %+v", ev)
	}
	u := w.waitIn(due.ID, model.WatchUndeliverable)
	if !strings.Contains(u.Reason, "6 hours") {
		t.Fatalf("window passed during the downtime: %+v", u)
	}
	if msgs := w.userMessages(rcpt.id); len(msgs) != 1 {
		t.Fatalf("the recipient got %q", msgs)
	}
}

// Scenario: S000-42 (S001-15), S000-31 (S001-04) — after a restart, until the session owning a
// thread is back, failed reads count neither toward unreadable nor as notFound or timedOut. A
// read that succeeds ends the grace; otherwise it ends 5 min after the restart, and then a
// missing thread is notFound and one that still cannot be read is unreadable 60 s later. A
// restored notification waits for its recipient to be readable.
func TestWatchS000_42_ReadFailuresAfterRestart(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	bot := w.client("bot")
	gone, corrupt, back := w.turnless(), w.turnless(), w.turnless()
	wGone := w.watching(bot, api.ThreadWatchParams{Thread: gone, TimeoutMs: 60 * 1000})
	wCorrupt := w.watching(bot, api.ThreadWatchParams{Thread: corrupt, TimeoutMs: 3600 * 1000})
	wBack := w.watching(bot, api.ThreadWatchParams{Thread: back, TimeoutMs: 60 * 1000})
	rcpt, th := w.gated(""), w.gated("")
	pending := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	w.openGate(th)
	w.waitPending(pending.ID)

	// Down for 2 minutes (past two deadlines). Three threads and the recipient cannot be read
	// when the runtime comes back: their files are moved away or damaged.
	saved := map[string][]byte{}
	w.restart(func() {
		w.clock.Advance(2 * time.Minute)
		for _, id := range []string{gone, corrupt, back, rcpt.id} {
			b, err := os.ReadFile(w.transcriptPath(id))
			if err != nil {
				t.Fatal(err)
			}
			saved[id] = b
			if err := os.Remove(w.transcriptPath(id)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(w.transcriptPath(corrupt), []byte("{damaged\n{\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	})
	restore := func(id string) {
		t.Helper()
		if err := os.WriteFile(w.transcriptPath(id), saved[id], 0o600); err != nil {
			t.Fatal(err)
		}
	}
	started := w.clock.Now()
	at := func(d time.Duration) {
		t.Helper()
		w.clock.Advance(started.Add(d).Sub(w.clock.Now()))
		w.step()
	}
	want := func(id, list string) model.Watch {
		t.Helper()
		got, in := w.find(id)
		if in != list {
			t.Fatalf("watch %s is %q (%+v), want %q", id, in, got, list)
		}
		return got
	}
	w.step()
	for _, id := range []string{wGone.ID, wCorrupt.ID, wBack.ID} {
		want(id, model.WatchWatching)
	}
	if p := want(pending.ID, model.WatchPending); p.Reason != "" {
		t.Fatalf("restored notification %+v", p)
	}

	// One thread's session is back: the read succeeds and the thread, past its deadline
	// without ever running, times out. The recipient is back too and gets its notification.
	restore(back)
	restore(rcpt.id)
	at(time.Minute)
	if ev := w.event("bot", wBack.ID); ev.Result != model.ResultTimedOut {
		t.Fatalf("readable again: %+v", ev)
	}
	msgs := w.waitUserMessages(rcpt.id, 2)
	if !strings.Contains(msgs[1], th.id) {
		t.Fatalf("restored notification %q", msgs[1])
	}

	at(model.RestartGrace - time.Second)
	want(wGone.ID, model.WatchWatching)
	want(wCorrupt.ID, model.WatchWatching)
	at(model.RestartGrace)
	if ev := w.event("bot", wGone.ID); ev.Result != model.ResultNotFound {
		t.Fatalf("missing after the grace: %+v", ev)
	}
	at(model.RestartGrace + model.UnreadableAfter - time.Second)
	want(wCorrupt.ID, model.WatchWatching)
	at(model.RestartGrace + model.UnreadableAfter)
	if ev := w.event("bot", wCorrupt.ID); ev.Result != model.ResultUnreadable || !strings.Contains(ev.Reason, "60 s") {
		t.Fatalf("unreadable after the grace: %+v", ev)
	}
}

// Scenario: S000-37 (S001-10), S000-35 — a recipient that cannot take a turn here (its harness
// was removed from the config) is undeliverable with that reason, not retried for 6 h and not
// reported as an unknown outcome.
func TestWatchS000_37_ReadOnlyRecipientIsUndeliverable(t *testing.T) {
	t.Parallel()
	hs := wHarnesses()
	hs["wold"] = config.Harness{Command: []string{"sh", "-c", "cat"}}
	w := wNewHost(t, wHostOptions{harnesses: hs})
	rcpt := w.startThread("wold", "on a harness about to go", "")
	w.waitStopped(rcpt.id)
	th := w.gated("")
	reg := w.watching(w.rt(), api.ThreadWatchParams{Thread: th.id, Notify: rcpt.id})
	w.restart(func() { w.setHarness("wold", nil) })
	// The thread's turn ended with the runtime; the recipient's session may still come back
	// within the grace, so the notification waits until it is over.
	p := w.waitPending(reg.ID)
	if p.Result != model.ResultInterrupted {
		t.Fatalf("pending %+v", p)
	}
	w.advance(model.RestartGrace)
	u := w.waitIn(reg.ID, model.WatchUndeliverable)
	if !strings.Contains(u.Reason, "read-only") || !strings.Contains(u.Reason, "wold") {
		t.Fatalf("undeliverable %+v", u)
	}
}
