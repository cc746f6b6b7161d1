package cli

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// withoutCodex is a runtime environment with no codex anywhere: CODEXHOST_CODEX_BIN unset,
// none on PATH (which holds npmDir), an empty checkout cache; the Codex home is codexHome.
func withoutCodex(t *testing.T, codexHome, npmDir string) []string {
	t.Helper()
	env := []string{"CODEXHOST_CODEX_CACHE=" + t.TempDir()}
	for _, kv := range codextest.Env(codexHome) {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+npmDir+":/usr/bin:/bin")
}

// The first run, as a person meets it at 80×24: a runtime without codex, the app attached to
// it. The setup panel opens by itself with the cause and the fix; i installs the pinned
// package with npm (a fake npm that links the real pinned binary where npm would put it), its
// lines show, and the fleet then lists the Codex home's stored session: no restart.
func TestTerminalAppInstallsCodexAndListsSessionsWithoutARestart(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	codexfixture.StoredThread(t, codexHome, "", "a session from before the install")
	npm := codextest.NewFakeNPM(t, bin, false)
	home, _ := appHomeWith(t, withoutCodex(t, codexHome, npm.Dir))

	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	const grace = 200 * time.Millisecond
	d, s, km := appOn(t, ctx, home, 80, 24, grace)

	d.waitFor("Codex is not available", "Cause", "the codex binary was not found", "Install from here")
	d.skip(grace) // the panel opened by itself ignores keys for the grace
	d.press(km.Setup.Install)
	d.waitFor("npm http fetch GET 200")
	d.waitFor("Codex "+appserver.PinnedVersion+" installed in", "a session from before the install")
	if _, err := os.Stat(appserver.HomeInstallDir(home)); err != nil {
		t.Fatalf("nothing in the home's install folder: %v", err)
	}
	var st api.CodexStatus
	if err := s.Call(ctx, api.MethodCodexStatus, nil, &st); err != nil || !st.Available || !strings.HasPrefix(st.Bin, "/") {
		t.Fatalf("status after the install: %+v %v", st, err)
	}
	d.tm.Send(keymap.MustMsg(km.Global.Quit.Keys()[0]))
	d.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// `codexhost codex status` says the same as the panel, and `codex install` refuses when an
// explicit binary would win over the installed copy.
func TestCodexCommandsMirrorThePanel(t *testing.T) {
	t.Parallel()
	npm := codextest.NewFakeNPM(t, "/bin/true", false)
	home, _ := appHomeWith(t, withoutCodex(t, t.TempDir(), npm.Dir))
	out, errOut, code := run(t, "codex", "status")
	if code != 0 || !strings.Contains(out, "codex   not available") || !strings.Contains(out, "hint: "+appserver.FixHint(home)) ||
		!strings.Contains(out, "`codexhost codex install` puts @openai/codex@"+appserver.PinnedVersion) {
		t.Fatalf("codex status (%d):\n%s%s", code, out, errOut)
	}

	appHome(t) // a second home, whose runtime has CODEXHOST_CODEX_BIN=/nonexistent/codex
	_, errOut, code = run(t, "codex", "install")
	if code != 1 || !strings.Contains(errOut, "CODEXHOST_CODEX_BIN names the codex binary") {
		t.Fatalf("codex install with an explicit binary (%d): %s", code, errOut)
	}
}
