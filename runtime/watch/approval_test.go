package watch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

func (v *testEnv) registerOn(thread model.ThreadID, notify, on string, timeout time.Duration) model.Watch {
	v.t.Helper()
	res, err := v.e.RegisterOn(context.Background(), thread, notify, on, timeout)
	if err != nil || res.State != model.WatchWatching || res.Watch == nil {
		v.t.Fatalf("register %s on %s: %+v %v", thread, on, res, err)
	}
	return *res.Watch
}

// Issue 28 (watch on approval): a watch --on approval ends with needsApproval and the
// approval's id once an approval of the thread waits, not at its stop; it survives a restart
// (the restart does not make it interrupted), and the notification names the approval and how
// it is answered. The same pair may have a stop watch beside it, which ends at the stop.
func TestWatchOnApprovalNotifiesWhenAnApprovalWaits(t *testing.T) {
	v := newTestEnv(t)
	th, rcpt := newID(), newID()
	v.reader.set(th, running("turn-1"))
	w := v.registerOn(th, string(rcpt), model.WatchOnApproval, time.Hour)
	stop := v.register(th, string(rcpt), time.Hour)
	if w.ID == stop.ID || w.On != model.WatchOnApproval || stop.On != "" {
		t.Fatalf("a watch on approval beside a stop watch: %+v %+v", w, stop)
	}
	v.step()
	v.want(w.ID, model.WatchWatching, "")

	v.open() // a restart while the thread runs
	v.reader.set(th, stopped("turn-1", model.TurnCompleted))
	v.at(time.Minute)
	v.step()
	v.want(w.ID, model.WatchWatching, "") // a stop is not what it waits for
	if len(v.sender.sent()) != 1 || strings.Contains(v.sender.sent()[0].text, "needs approval") {
		t.Fatalf("the stop watch's notification: %+v", v.sender.sent())
	}

	st := running("turn-2")
	st.Approval = "ap-9-1"
	v.reader.set(th, st)
	v.e.OnEvent(th, model.ThreadActive, "")
	v.at(2 * time.Minute)
	v.step()
	sent := v.sender.sent()
	if len(sent) != 2 || sent[1].recipient != rcpt || !strings.Contains(sent[1].text, "needs approval: ap-9-1") ||
		!strings.Contains(sent[1].text, "codexhost approve ap-9-1") {
		t.Fatalf("notifications %+v", sent)
	}
	if _, in := v.find(w.ID); in != "" {
		t.Fatalf("a delivered watch on approval is still listed in %s", in)
	}
}

// A watch on approval that sees none before its deadline is timedOut; a thread that already
// stopped is watched (no alreadyTerminal); an unknown condition is refused.
func TestWatchOnApprovalTimesOutAndRefusesUnknownConditions(t *testing.T) {
	v := newTestEnv(t)
	v.sender.def = errBusy
	th := newID()
	v.reader.set(th, stopped("turn-1", model.TurnCompleted))
	w := v.registerOn(th, string(newID()), model.WatchOnApproval, time.Minute)
	v.step()
	v.want(w.ID, model.WatchWatching, "")
	v.at(time.Minute)
	v.step()
	if got := v.want(w.ID, model.WatchPending, model.ResultTimedOut); got.Approval != "" {
		t.Fatalf("%+v", got)
	}
	if _, err := v.e.RegisterOn(context.Background(), th, string(newID()), "input", time.Minute); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("an unknown condition: %v", err)
	}
}
