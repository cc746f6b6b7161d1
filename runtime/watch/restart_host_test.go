package watch_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/watch"
	"github.com/codexhost/codexhost/store"
)

// Restart tests close the runtime and open a new one on the same home. External turns die
// with the runtime (they end interrupted), so a watch that must survive a restart still
// watching is put on a thread that never got a turn.

// Scenario: S001-16, S000-40 (S001-13) — a turn running when the runtime stopped is reported
// interrupted with the reason, not completed, and not timedOut although the deadline passed
// during the downtime: interrupted is how it really ended.
func TestWatchS001_16_TurnRunningAtRestartIsInterrupted(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	th := w.gated("")
	reg := w.watching(w.Client("bot"), api.ThreadWatchParams{Thread: th.id, TimeoutMs: 60 * 1000})
	w.restart(func() { w.clock.Advance(10 * time.Minute) })
	ev := w.event("bot", reg.ID)
	if ev.Result != model.ResultInterrupted || ev.Turn != th.turn || !strings.Contains(ev.Reason, "restarted") {
		t.Fatalf("after the restart: %+v", ev)
	}
	if last := w.read(th.id).Thread.LastTurn; last == nil || last.ID != th.turn || last.Status != model.TurnInterrupted {
		t.Fatalf("the thread's last turn: %+v", last)
	}
}

// Scenario: S000-44 (S001-18) — the runtime died after a delivery started and before it was
// recorded (the record is left in state delivering): the next runtime delivers it again; the
// text holds the status and the link, nothing of the conversation.
func TestWatchS000_44_InterruptedDeliveryIsDeliveredAgain(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt := w.idle()
	th := w.startThread("wgate", "wsecret-task-2b7f the work itself", "")
	w.waitStopped(th.id)
	w.restart(func() {
		st, err := store.Open(w.Home, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec := model.Watch{V: 1, ID: uuid.NewString(), Thread: model.ThreadID(th.id), Notify: rcpt.id, State: model.WatchDelivering,
			RegisteredAt: wT0, Deadline: wT0.Add(time.Hour), Result: model.ResultCompleted, SourceTurn: th.turn,
			DueAt: wT0, Attempts: 1, UpdatedAt: wT0}
		if err := st.PutWatch(rec); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	})
	msgs := w.waitUserMessages(rcpt.id, 2)
	text := msgs[1]
	for _, s := range []string{"codex://threads/" + th.id, model.ResultCompleted, th.turn, `"$CODEXHOST_CLI_PATH" thread read ` + th.id} {
		if !strings.Contains(text, s) {
			t.Fatalf("notification %q lacks %q", text, s)
		}
	}
	if strings.Contains(text, "wsecret-task-2b7f") || strings.Contains(text, "the work itself") {
		t.Fatalf("notification carries conversation content: %q", text)
	}
	if l := w.watches(); len(l.Watching)+len(l.Pending)+len(l.Undeliverable) != 0 || w.storedWatches() != 0 {
		t.Fatalf("after redelivery: %+v", l)
	}
}

// Scenario: S000-45 (S001-19) — watch records and client events hold ids, states, results,
// turns, times and reasons only; no task or message text and no token is anywhere in the
// store; the home is readable by its user only.
func TestWatchS000_45_RecordsHoldNoContent(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	const secret = "wsecret-9c1e"
	rcpt := w.startThread("wgate", secret+" recipient task", "")
	w.waitStopped(rcpt.id)
	done := w.gated(secret + " watched task")
	busy := w.gated(secret + " busy task")
	stays := w.gated(secret + " still running")
	rt, bot := w.rt(), w.Client("bot")
	w.watching(rt, api.ThreadWatchParams{Thread: done.id, Notify: rcpt.id})
	w.watching(rt, api.ThreadWatchParams{Thread: done.id, Notify: busy.id})
	w.watching(bot, api.ThreadWatchParams{Thread: done.id})
	w.watching(bot, api.ThreadWatchParams{Thread: stays.id})
	w.openGate(done)
	w.waitUserMessages(rcpt.id, 2)
	wEventually(t, "the client event", func() bool { return len(w.events("bot", "", 10).Events) == 1 })
	hosttest.Call[api.ThreadSendResult](t, rt, api.MethodThreadSend, api.ThreadSendParams{Thread: rcpt.id, Message: secret + " a later message"})
	w.waitStopped(rcpt.id)
	w.Shutdown()

	dump := hosttest.ReadStore(t, w.Home)
	allowedWatch := map[string]bool{"v": true, "id": true, "thread": true, "notify": true, "state": true, "registeredAt": true, "deadline": true,
		"runningTurn": true, "result": true, "sourceTurn": true, "dueAt": true, "attempts": true, "nextAttempt": true, "deliveredAt": true, "reason": true, "updatedAt": true}
	allowedEvent := map[string]bool{"v": true, "cursor": true, "type": true, "watch": true, "thread": true, "link": true, "result": true, "sourceTurn": true, "reason": true, "at": true,
		"usage": true} // token counts only
	kinds := map[string]int{}
	for k, v := range dump {
		for _, s := range []string{secret, "watched task", "codexhost watch notification", w.RuntimeToken(), w.Tokens["bot"], w.Tokens["ops"]} {
			if strings.Contains(k, s) || strings.Contains(v, s) {
				t.Fatalf("store record %q holds %q: %s", k, s, v)
			}
		}
		var allowed map[string]bool
		switch {
		case strings.HasPrefix(k, store.PrefixWatch+"/"):
			allowed = allowedWatch
		case strings.HasPrefix(k, "clientev/"):
			allowed = allowedEvent
		default:
			continue
		}
		kinds[strings.SplitN(k, "/", 2)[0]]++
		var fields map[string]any
		if err := json.Unmarshal([]byte(v), &fields); err != nil {
			t.Fatalf("record %q: %v", k, err)
		}
		for f := range fields {
			if !allowed[f] {
				t.Fatalf("record %q has field %q: %s", k, f, v)
			}
		}
	}
	// Guards against a scan that sees nothing: one watching, one pending, one client event.
	if kinds[store.PrefixWatch] != 2 || kinds["clientev"] != 1 {
		t.Fatalf("records seen: %v", kinds)
	}

	err := filepath.WalkDir(w.Home, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := info.Mode(); {
		case mode.IsDir() && mode.Perm() != 0o700:
			t.Errorf("directory %s has mode %v", path, mode.Perm())
		case mode.IsRegular() && mode.Perm() != 0o600:
			t.Errorf("file %s has mode %v", path, mode.Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

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
	toClient := w.watching(w.Client("bot"), api.ThreadWatchParams{Thread: th, TimeoutMs: 3 * 3600 * 1000})
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
	res := hosttest.Call[api.ThreadSendResult](t, w.rt(), api.MethodThreadSend, api.ThreadSendParams{Thread: th, Message: "now it runs"})
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
	timed := w.watching(w.Client("bot"), api.ThreadWatchParams{Thread: idle, TimeoutMs: 10 * 60 * 1000})
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
	bot := w.Client("bot")
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

// Scenario: S000-34, S000-42 — a notification pending for a recipient that was busy when the
// runtime stopped is tried as soon as the next runtime has it: the restart ended the busy
// turn, so waiting out the busy retry (30 s) would only delay it. The clock never moves here.
func TestWatchPendingNotificationIsTriedAtOnceAfterARestart(t *testing.T) {
	t.Parallel()
	w := wNewHost(t, wHostOptions{})
	rcpt := w.idle()
	th := w.startThread("wgate", "watched work", "")
	w.waitStopped(th.id)
	w.restart(func() {
		st, err := store.Open(w.Home, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec := model.Watch{V: 1, ID: uuid.NewString(), Thread: model.ThreadID(th.id), Notify: rcpt.id, State: model.WatchPending,
			RegisteredAt: wT0, Deadline: wT0.Add(time.Hour), Result: model.ResultCompleted, SourceTurn: th.turn,
			DueAt: wT0, Attempts: 1, NextAttempt: wT0.Add(watch.BusyRetry), UpdatedAt: wT0}
		if err := st.PutWatch(rec); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	})
	if text := w.waitUserMessages(rcpt.id, 2)[1]; !strings.Contains(text, "codex://threads/"+th.id) {
		t.Fatalf("notification %q", text)
	}
}
