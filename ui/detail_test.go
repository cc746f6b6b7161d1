package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// dialogText is the detail dialog's lines without frame and padding, joined by spaces, so
// that wrapped text reads whole again.
func dialogText(a *testApp) string {
	a.view() // the dialog is drawn at the width it gets
	var words []string
	for _, l := range a.details.lines {
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

func TestDetailViewShowsTheWholeStatusErrorAndTheRawState(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 80, 24)
	long := "send to 019a0000…a1: THREAD_BUSY: the thread is running a turn started by another client " +
		strings.Repeat("and the runtime refuses a second one ", 5) + "(wait for it, or x cancels it) ENDOFREASON"
	a.send(statusMsg{level: levelError, text: long})
	mustNotContain(t, a.view(), "ENDOFREASON")
	a.press(a.km.List.Down)
	a.press(a.km.List.Down) // the stored session
	if ref, _ := a.fleet.Selected(); ref.ID != idC {
		t.Fatalf("selected %s", ref.ID)
	}
	a.press(a.km.Global.Info)
	if !a.details.open {
		t.Fatal("i opened no detail view")
	}
	v := a.view()
	mustContain(t, v, "Details", "Session", "stored (notLoaded)", "stored session")
	mustContain(t, dialogText(a), long, "last error:", "link: codex://threads/"+idC, "host node:lab")
	// It scrolls when it is longer than the screen, and any other key closes it.
	if len(a.details.lines) > a.details.rows {
		a.press(a.km.List.Bottom)
		if a.details.off == 0 {
			t.Fatal("the detail view does not scroll")
		}
		mustContain(t, a.view(), "of "+itoa(len(a.details.lines)))
	}
	a.send(keyOf(a.km.Global.Quit))
	if a.details.open || a.quitting {
		t.Fatalf("a key other than scrolling should close the view only (open %v, quitting %v)", a.details.open, a.quitting)
	}
}

func TestDetailViewShowsAnUndeliverableReasonInFull(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	reason := "recipient thread " + idChild + " is gone: it was archived before the watched thread stopped, so nobody can be told " + strings.Repeat("of it ", 20) + "END"
	rt.on(api.MethodThreadWatches, func(json.RawMessage) (any, error) {
		return api.WatchesResult{Watching: []model.Watch{}, Pending: []model.Watch{},
			Undeliverable: []model.Watch{{ID: "w2", Thread: idA, Notify: idChild, State: model.WatchUndeliverable, Result: model.ResultCompleted, Reason: reason}}}, nil
	})
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.Global.Undeliverable)
	mustNotContain(t, a.view(), " END")
	a.press(a.km.Global.Info)
	mustContain(t, dialogText(a), "reason: "+reason, "state: undeliverable", "notify: "+idChild)
}

func TestDetailViewOfTheTranscriptHasTheTurnOutcome(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.send(threadSelectedMsg{ref: threadRef{ID: idShell, Harness: "shell"}, focus: true})
	a.press(a.km.Global.Info)
	mustContain(t, dialogText(a), "Thread", "id: "+idShell, "status: idle", "harness: shell")
}

// Scenario: issue 24 item 6. A watch whose deadline is 29 minutes ahead says so, not "(now)".
func TestRelativeTimesLookBothWays(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		29 * time.Minute: "in 29m", -5 * time.Minute: "5m ago", 20 * time.Second: "now",
		-20 * time.Second: "now", 3 * time.Hour: "in 3h", -50 * time.Hour: "2d ago",
	} {
		if got := relative(epoch, epoch.Add(d)); got != want {
			t.Errorf("relative(%v) = %q, want %q", d, got, want)
		}
	}
}
