package ui

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// missingCodex is the status of a runtime with no codex anywhere, as codexsetup builds it.
func missingCodex(home string) api.CodexStatus {
	dir := appserver.HomeInstallDir(home)
	return api.CodexStatus{
		Error: model.Errorf(model.CodeAppServerUnavailable, appserver.FixHint(home),
			"the codex binary was not found: config.toml codex_bin and CODEXHOST_CODEX_BIN are unset, no copy in %s, no codex on PATH", dir),
		PinnedVersion: appserver.PinnedVersion, InstallDir: dir, InstallCommand: appserver.InstallCommand(home),
		NPM: "/usr/bin/npm", CanInstall: true,
	}
}

// panelText is every content line of the open setup panel, read by scrolling it from top to
// bottom, its frame taken off; it checks that no line of the app's view is wider than w.
func panelText(t *testing.T, ta *testApp, w, h int) []string {
	t.Helper()
	var lines []string
	ta.press(ta.km.List.Top)
	for range 200 {
		v := ta.view()
		for _, l := range strings.Split(v, "\n") {
			if got := ansi.StringWidth(l); got > w {
				t.Fatalf("a line of %d cells at width %d: %q", got, w, l)
			}
		}
		box := ta.setup.View(w-4, h-2) // what the view overlays
		top := ta.setup.off
		for i, l := range box[1 : len(box)-2] { // the frame and the key line off
			if top+i >= len(lines) {
				lines = append(lines, strings.TrimSuffix(strings.TrimPrefix(l, "┃ "), " ┃"))
			}
		}
		if bottomShown(v) {
			return lines
		}
		ta.press(ta.km.List.Down)
	}
	t.Fatal("the panel never reached its bottom")
	return nil
}

var linesShown = regexp.MustCompile(`lines \d+–(\d+) of (\d+)`)

// bottomShown reports a panel that fits, or whose "lines a–b of n" has b == n.
func bottomShown(v string) bool {
	m := linesShown.FindStringSubmatch(v)
	return m == nil || m[1] == m[2]
}

// letters is s without white space, so wrapped text compares with the text it came from.
func letters(s string) string { return strings.Join(strings.Fields(s), "") }

// At 80×24 (and wider) the panel opens by itself and shows the cause and the fix in full:
// wrapped, scrolled, never cut.
func TestSetupPanelShowsCauseAndFixInFullAt80Columns(t *testing.T) {
	t.Parallel()
	home := "/home/someone-with-a-long-name/.config/codexhost-home-for-this-machine"
	st := missingCodex(home)
	for _, size := range [][2]int{{80, 24}, {120, 35}, {200, 50}} {
		rt := newFake()
		fleetFixture(rt)
		rt.on(api.MethodCodexStatus, func(json.RawMessage) (any, error) { return st, nil })
		ta := newTestApp(t, rt, size[0], size[1])
		if !ta.setup.open {
			t.Fatalf("%dx%d: the setup panel did not open", size[0], size[1])
		}
		ta.clk.advance(ta.c.grace) // an async dialog ignores keys for a moment
		text := letters(strings.Join(panelText(t, ta, size[0], size[1]), " "))
		for _, want := range []string{st.Error.Message, st.Error.Hint, st.InstallDir, "Press i to install @openai/codex@" + st.PinnedVersion,
			"External harnesses, watches and the runtime's own threads work"} {
			if !strings.Contains(text, letters(want)) {
				t.Fatalf("%dx%d: the panel does not show %q in full:\n%s", size[0], size[1], want, text)
			}
		}
		if strings.Contains(text, "…") {
			t.Fatalf("%dx%d: the panel cut a text:\n%s", size[0], size[1], text)
		}
	}
}

// Closing the panel leaves the rest of the app working; I opens it again, and asks again.
func TestSetupPanelClosesAndReopens(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCodexStatus, func(json.RawMessage) (any, error) { return missingCodex("/h"), nil })
	ta := newTestApp(t, rt, 100, 30)
	ta.press(ta.km.Setup.Close) // within the grace: ignored
	if !ta.setup.open {
		t.Fatal("a key within the grace closed the panel")
	}
	ta.clk.advance(ta.c.grace)
	ta.press(ta.km.Setup.Close)
	if ta.setup.open || !strings.Contains(ta.view(), "Codex is not available: press I") {
		t.Fatalf("closed panel:\n%s", ta.view())
	}
	before := len(callsTo[struct{}](rt, api.MethodCodexStatus))
	ta.press(ta.km.Global.Setup)
	if !ta.setup.open || len(callsTo[struct{}](rt, api.MethodCodexStatus)) != before+1 {
		t.Fatal("I did not open the panel and ask again")
	}
}

// A runtime that finds codex, or refuses the status to this caller, opens no panel.
func TestSetupPanelStaysClosedWhenCodexIsThere(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCodexStatus, func(json.RawMessage) (any, error) {
		return api.CodexStatus{Available: true, Bin: "/usr/bin/codex", PinnedVersion: appserver.PinnedVersion}, nil
	})
	if ta := newTestApp(t, rt, 100, 30); ta.setup.open {
		t.Fatal("the panel opened although codex is available")
	}
	rt.on(api.MethodCodexStatus, func(json.RawMessage) (any, error) {
		return nil, model.Errorf(model.CodePermissionDenied, "", "codex.status is reserved for the home's operator client")
	})
	if ta := newTestApp(t, rt, 100, 30); ta.setup.open {
		t.Fatal("the panel opened on a refused status")
	}
}

// The install streams npm's lines into the panel; a failure says why and offers to try again.
func TestSetupPanelShowsNpmLinesAndFailure(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCodexStatus, func(json.RawMessage) (any, error) { return missingCodex("/h"), nil })
	rt.on(api.MethodCodexInstall, func(json.RawMessage) (any, error) {
		return nil, model.Errorf(model.CodeFailedPrecondition, "check the network", "npm install @openai/codex failed: E404")
	})
	ta := newTestApp(t, rt, 100, 30)
	ta.clk.advance(ta.c.grace)
	ta.press(ta.km.Setup.Install)
	v := ta.view()
	mustContain(t, v, "The install failed", "npm install @openai/codex failed: E404", "Fix: check the network", "i try again")
	// Lines arrive one by one while it runs.
	ta.setup.installing = true
	ta.send(setupLineMsg{line: "npm http fetch GET 200 https://registry.npmjs.org/@openai%2fcodex 41ms"})
	mustContain(t, ta.view(), "Installing Codex", "npm http fetch GET 200")
}
