package ui

import (
	"testing"
)

// Scenario: issue 16 bug 7. x, a and c are offered only where they apply; pressed where they
// do not, they say why and ask nothing.
func TestThreadKeysAreOfferedOnlyWhereTheyApplyAndSayWhyOtherwise(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 200, 34)
	footer := func() string { return a.footer() }

	// idA: an idle native session. Nothing to cancel.
	mustNotContain(t, footer(), "cancel turn")
	mustContain(t, footer(), "archive", "continue session")
	a.press(a.km.Thread.Cancel)
	if a.confirm.open {
		t.Fatal("x on an idle thread asked to interrupt a turn")
	}
	mustContain(t, a.status.View(200), "nothing to cancel", "is idle, no turn is running")

	// idB: running a turn. x applies.
	a.press(a.km.List.Down)
	mustContain(t, footer(), "cancel turn")
	a.press(a.km.Thread.Cancel)
	if !a.confirm.open {
		t.Fatal("x on a running thread did not ask")
	}
	a.press(a.km.Dialog.Cancel)

	// The shell thread: an external harness, neither archived nor continued.
	a.press(a.km.List.Bottom)
	if ref, _ := a.fleet.Selected(); ref.ID != idShell {
		t.Fatalf("cursor on %s", ref.ID)
	}
	mustNotContain(t, footer(), "archive", "continue session", "cancel turn")
	a.press(a.km.Thread.Archive)
	mustContain(t, a.status.View(200), `runs on harness "shell"`)
	a.press(a.km.Fleet.Continue)
	mustContain(t, a.status.View(200), "only native Codex sessions can be continued")
	if a.confirm.open {
		t.Fatal("a dialog opened for a key that does not apply")
	}
}
