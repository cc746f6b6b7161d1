package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
)

// hostileSequences are the parts of hostile that would drive a terminal: a window title, a
// clipboard write, a cleared screen, a C1 CSI and the bidi controls. The app's own frames
// carry escape sequences of their own, so these are looked for, not any ESC.
var hostileSequences = []string{"\x1b]0;pwned", "\x1b]52;", "\x1b[2J", "\u009b", "\u202E", "\u2066", "\u2069", "\u200f", "\u061c"}

// Issue 24 item 7, in the terminal app against a real runtime and App Server: a native
// session titled and written with hostile text, and an external thread whose task (its title,
// its message and its reply) is hostile, are drawn in the fleet, the transcript, the lineage
// and the detail view with their controls as visible marks; none reaches the terminal.
func TestTerminalAppDrawsHostileTitlesAndMessagesInert(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	native := stored(t, codexHome, hostile)
	codexfixture.Name(t, codexHome, native, hostile)

	home, _ := appHomeWith(t, append(codextest.Env(codexHome), "CODEXHOST_CODEX_BIN="+bin))
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	d, s, km := appOn(t, ctx, home, 200, 50, 0)
	external := delegate(t, s, api.DelegateStartParams{Harness: "shell", Task: hostile, Cwd: t.TempDir()})
	d.waitForScreen("gateway:local  ✓ ok · 1", "codexhost threads  ✓ ok · 1")

	// Each thread in turn: its row, its transcript, its lineage and its detail view.
	for _, id := range []string{external, native} {
		d.press(km.Global.Open)
		d.waitFor("Open a thread")
		d.typeText(id)
		d.press(km.Input.Submit)
		d.waitForShort("Transcript · ", id, "")
		d.waitForScreen("▌ HOSTILE", "<U+001B>]52;", "<U+202E>evil")
		d.press(km.Global.Info)
		d.waitFor("HOSTILE")
		d.press(km.Global.Info)
	}
	d.press(km.Global.Quit)
	d.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))

	out := d.all.String()
	if n := strings.Count(out, "HOSTILE"); n < 6 {
		t.Fatalf("the hostile text showed %d times:\n%s", n, out)
	}
	for _, seq := range hostileSequences {
		if strings.Contains(out, seq) {
			t.Fatalf("%q reached the terminal:\n%q", seq, out)
		}
	}
}
