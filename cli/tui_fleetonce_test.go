package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/ui"
)

// A continued session is listed once in the fleet, against a real runtime and App Server:
// while pending its branch is the one row of "codexhost threads"; once its first send made
// its Codex thread, it is a row of gateway:local (◇, titled after its source) and the
// codexhost group is empty; its transcript head names the session and the source.
func TestTerminalAppListsAContinuedSessionOnce(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	src, _ := codexfixture.StoredThread(t, codexHome, "", "please fix the parser")
	codexfixture.Name(t, codexHome, src, "Fix the parser")
	codexfixture.StoredThread(t, codexHome, "", "another session")

	home, _ := appHomeWith(t, append(codextest.Env(codexHome), "CODEXHOST_CODEX_BIN="+bin))
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	d, _, km := appOn(t, ctx, home, 150, 45, 0)
	d.waitFor("gateway:local  ✓ ok", "Fix the parser")
	if n := d.hostCount("gateway:local"); n != 2 {
		t.Fatalf("gateway:local shows %d sessions, want 2:\n%s", n, d.since())
	}

	// Select the named session and continue it: a pending branch, titled after its source.
	for i := 0; !d.seen(time.Second, "· "+src); i++ {
		if i == 6 {
			t.Fatalf("the source never got selected:\n%s", d.all.Bytes())
		}
		d.press(km.List.Down)
	}
	d.press(km.Fleet.Continue)
	d.waitFor("Continue session?")
	d.press(km.Dialog.Confirm)
	d.waitFor("new supervised thread", "Fix the parser (branch)")
	d.waitForShort("branch of ", src, " · ")
	sup := regexp.MustCompile(`new supervised thread (\S+…\S\S)`).FindSubmatch(d.since())
	if sup == nil {
		t.Fatalf("no supervised thread id:\n%s", d.since())
	}
	d.press(km.Global.Refresh)
	d.waitForScreen("codexhost threads  ✓ ok · 1", "gateway:local  ✓ ok · 2")

	// Its first send makes its Codex thread, which gateway:local lists as the branch.
	d.press(km.Thread.Send)
	d.waitFor("Send a message")
	d.typeText("carry on")
	d.press(km.Input.Submit)
	d.waitFor("to: carry on")
	d.press(km.Global.Refresh)
	d.waitForScreen("gateway:local  ✓ ok · 3", "codexhost threads  ✓ ok · 0", "◇ Fix the parser (branch)")

	d.press(km.Global.Quit)
	d.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	final := d.tm.FinalModel(t).(*ui.App)
	fleet := fleetColumn(final.View())
	if n := strings.Count(fleet, "Fix the parser (branch)"); n != 1 {
		t.Fatalf("the branch shows %d times in the fleet:\n%s", n, fleet)
	}
	if !strings.Contains(fleet, "◇ Fix the parser (branch)") || strings.Count(fleet, "Fix the parser") != 2 {
		t.Fatalf("the fleet:\n%s", fleet)
	}
}
