package watch_test

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
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
	for _, s := range []string{"codex://threads/" + th.id, model.ResultCompleted, th.turn, "codexhost thread read " + th.id} {
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
