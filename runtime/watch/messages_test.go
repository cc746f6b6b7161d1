package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// queueMessage writes a message and its pending watch the way a producer does.
func (v *testEnv) queueMessage(recipient model.ThreadID, name, text string) model.Watch {
	v.t.Helper()
	if err := v.e.WriteMessage(name, text); err != nil {
		v.t.Fatal(err)
	}
	now := v.clock.Now()
	w := model.Watch{V: 1, ID: "msg-" + name, Thread: recipient, Notify: string(recipient), State: model.WatchPending,
		RegisteredAt: now, Deadline: now, DueAt: now, NextAttempt: now, UpdatedAt: now, MessageFile: name}
	if err := v.st.PutWatch(w); err != nil {
		v.t.Fatal(err)
	}
	v.e.Adopt(w)
	return w
}

// Scenario: S002-10 — a queued message takes the notification path: busy → pending, retried,
// merged with the recipient's other pending notifications, its file removed when delivered.
func TestS002_10_QueuedMessageRetriedAndMergedWithNotifications(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	dir := filepath.Join(t.TempDir(), "messages")
	e, err := Open(Options{Store: v.st, Read: v.reader.read, Send: v.sender.send, Now: v.clock.Now, MessageDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	v.e = e
	author, child := newID(), newID()
	v.reader.set(child, running("t1"))
	v.reader.set(author, stopped("a1", model.TurnCompleted))
	w := v.register(child, string(author), time.Hour)
	v.sender.failWith(model.Errorf(model.CodeThreadBusy, "wait", "busy"))
	v.queueMessage(author, "report-1", "codexhost marker report for turn a1")
	v.step()
	if st, err := os.Stat(filepath.Join(dir, "report-1")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("message file: %v %v", st, err)
	}
	if got := v.sender.sent(); len(got) != 1 || !strings.Contains(got[0].text, "marker report") {
		t.Fatalf("first attempt: %+v", got)
	}
	// The child stops while the report is pending: one message carries both.
	v.reader.set(child, stopped("t1", model.TurnCompleted))
	v.e.OnEvent(child, model.ThreadIdle, model.TurnCompleted)
	v.at(BusyRetry)
	v.step()
	got := v.sender.sent()
	if len(got) != 2 || !strings.Contains(got[1].text, "marker report") || !strings.Contains(got[1].text, string(child)) {
		t.Fatalf("merged delivery: %+v", got)
	}
	if _, in := v.find(w.ID); in != "" {
		t.Fatalf("watch still %s", in)
	}
	if _, err := os.Stat(filepath.Join(dir, "report-1")); !os.IsNotExist(err) {
		t.Fatalf("message file kept after delivery: %v", err)
	}
	v.step()
	if n := len(v.sender.sent()); n != 2 {
		t.Fatalf("delivered again: %d sends", n)
	}
}

func TestWriteMessageRefusesPaths(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	e, _ := Open(Options{Store: v.st, Read: v.reader.read, Send: v.sender.send, Now: v.clock.Now, MessageDir: t.TempDir()})
	for _, name := range []string{"", "../x", "a/b", ".hidden"} {
		if err := e.WriteMessage(name, "x"); err == nil {
			t.Fatalf("%q accepted", name)
		}
	}
}
