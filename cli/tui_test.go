package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/themes"
	"github.com/codexhost/codexhost/ui"
)

// commandPattern finds a subcommand in the README table: `codexhost thread send T ...`.
func commandPattern(cmd string) *regexp.Regexp {
	return regexp.MustCompile("`codexhost " + regexp.QuoteMeta(cmd) + "[ `]")
}

// Every key that calls the runtime has a subcommand doing the same, and the README's table
// says which.
func TestEveryKeymapActionHasASubcommand(t *testing.T) {
	t.Parallel()
	root := NewRoot(io.Discard, io.Discard)
	km := keymap.Default()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `") {
			table = append(table, l)
		}
	}
	for _, a := range km.Actions() {
		if keymap.IsNavigation(a.Name) {
			continue
		}
		if len(a.Commands) == 0 {
			t.Errorf("%s has no subcommand", a.Name)
		}
		for _, c := range a.Commands {
			found, _, err := root.Find(strings.Fields(c))
			if err != nil || found == root || found.CommandPath() != "codexhost "+c {
				t.Errorf("%s: no subcommand `codexhost %s` in the command tree", a.Name, c)
			}
		}
		row := ""
		for _, l := range table {
			if strings.HasPrefix(l, "| `"+a.Binding.Help().Key+"` |") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("README: no row for key %q (%s)", a.Binding.Help().Key, a.Name)
			continue
		}
		for _, c := range a.Commands {
			if !commandPattern(c).MatchString(row) {
				t.Errorf("README: the row of %q (%s) does not name `codexhost %s`", a.Binding.Help().Key, a.Name, c)
			}
		}
	}
}

func TestBareCommandNeedsATerminalAndAKnownTheme(t *testing.T) {
	t.Parallel()
	_, errOut, code := run(t, "--theme", "sepia")
	if code != 1 || !strings.Contains(errOut, "unknown theme") || !strings.Contains(errOut, "high-contrast") {
		t.Fatalf("bad theme: %d %s", code, errOut)
	}
	// Tests run without a terminal: the app explains instead of drawing.
	_, errOut, code = run(t)
	if code != 1 || !strings.Contains(errOut, "needs a terminal") {
		t.Fatalf("no terminal: %d %s", code, errOut)
	}
}

func TestKeyConfigErrorsNameTheEntry(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte("[keys]\n\"thread.archive\" = \"q\"\n\"thread.zap\" = \"z\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := loadKeymap(home)
	if err == nil || !strings.Contains(err.Error(), `"thread.zap": unknown action`) {
		t.Fatalf("loadKeymap: %v", err)
	}
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte("[keys]\n\"thread.archive\" = [\"A\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	km, err := loadKeymap(home)
	if err != nil || km.Thread.Archive.Keys()[0] != "A" {
		t.Fatalf("rebinding: %v %v", km.Thread.Archive.Keys(), err)
	}
}

// appHome starts a runtime on a fresh short home with external harnesses and no Codex, and
// points the operator commands at it.
func appHome(t *testing.T) (home string, host *runtime.Host) {
	t.Helper()
	return appHomeWith(t, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "CODEXHOST_CODEX_BIN=/nonexistent/codex"})
}

// appHomeWith is appHome with the runtime's process environment given.
func appHomeWith(t testing.TB, environ []string) (home string, host *runtime.Host) {
	t.Helper()
	home, err := os.MkdirTemp("", "chu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	cfg := &config.Config{Harnesses: map[string]config.Harness{
		"shell": {Command: []string{"sh", "-c", "cat"}},
		// Runs until a file named "gate" appears in its working directory.
		"slow": {Command: []string{"sh", "-c", `i=0; while [ ! -e gate ] && [ $i -lt 1500 ]; do sleep 0.02; i=$((i+1)); done; cat`}},
	}}
	if err := config.Save(home, cfg); err != nil {
		t.Fatal(err)
	}
	setenv(t, envHome, home)
	setenv(t, envClientToken, "")
	setenv(t, envEndpoint, "")
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "")
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	if err := prepareOperatorHome(home); err != nil {
		t.Fatal(err)
	}
	return home, serveRuntime(t, home, environ)
}

func delegate(t testing.TB, s *operatorSession, p api.DelegateStartParams) string {
	t.Helper()
	var res api.DelegateStartResult
	if err := s.Call(context.Background(), api.MethodDelegateStart, p, &res); err != nil {
		t.Fatal(err)
	}
	return res.Thread.ID
}

func TestLineageCommandWalksFromTheRootToTheLeaves(t *testing.T) {
	t.Parallel()
	home, _ := appHome(t)
	s, err := openOperator(testCtx(t), home, operatorCommand{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.host != nil {
		t.Fatal("the session embedded a runtime although one holds the home")
	}
	cwd := t.TempDir()
	root := delegate(t, s, api.DelegateStartParams{Harness: "shell", Task: "root task", Cwd: cwd})
	child := delegate(t, s, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: root}, Harness: "shell", Task: "child task", Cwd: cwd,
		Refs: []string{"https://example.com/spec"}})
	sibling := delegate(t, s, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: root}, Harness: "shell", Task: "sibling", Cwd: cwd})
	grandchild := delegate(t, s, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: child}, Harness: "shell", Task: "grandchild", Cwd: cwd})

	// One JSON document by default, as agents read it.
	out, errOut, code := run(t, "lineage", "codex://threads/"+child, "--timeout-ms", "20000")
	if code != 0 {
		t.Fatalf("lineage: %d %s", code, errOut)
	}
	var res api.ThreadLineageResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Root != root || res.Focus != child || res.Truncated || len(res.Nodes) != 4 || res.Nodes[0].Thread.ID != root {
		t.Fatalf("lineage %s", out)
	}
	pos := map[string]int{}
	for i, n := range res.Nodes {
		pos[n.Thread.ID] = i
		if n.Parent != "" && pos[n.Parent] >= i {
			t.Fatalf("%s comes before its parent", n.Thread.ID)
		}
	}
	byID := func(id string) api.LineageNode { return res.Nodes[pos[id]] }
	if got := byID(root).Children; len(got) != 2 || got[0] != child || got[1] != sibling {
		t.Fatalf("root's children %v", got)
	}
	if got := byID(child); got.Parent != root || len(got.Children) != 1 || got.Children[0] != grandchild || got.Thread.Harness != "shell" {
		t.Fatalf("child %+v", got)
	}
	if refs := byID(grandchild).Thread.Refs; len(refs) != 1 || refs[0] != "https://example.com/spec" {
		t.Fatalf("grandchild did not inherit the ref: %v", refs)
	}

	out, _, code = run(t, "lineage", grandchild, "--text")
	if code != 0 || !strings.HasPrefix(out, root+"  shell") || !strings.Contains(out, "├─ "+child) ||
		!strings.Contains(out, "│  └─ "+grandchild) || !strings.Contains(out, "└─ "+sibling) || !strings.Contains(out, grandchild+"  shell") {
		t.Fatalf("lineage tree:\n%s", out)
	}
	if !regexp.MustCompile(regexp.QuoteMeta(grandchild) + `.*◀`).MatchString(out) {
		t.Fatalf("the asked thread is not marked:\n%s", out)
	}

	_, errOut, code = run(t, "lineage", "019a0000-0000-7000-8000-000000000000")
	if code != 1 || errorCode(t, errOut) != model.CodeThreadNotFound {
		t.Fatalf("unknown thread: %d %s", code, errOut)
	}
}

// TestTerminalAppDrivesARealRuntime runs the app against a runtime as a person would: it
// delegates, reads the transcript, sends a message, sees the lineage grow, watches a thread
// and sees the notification land.
func TestTerminalAppDrivesARealRuntime(t *testing.T) {
	t.Parallel()
	home, _ := appHome(t)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	s, err := openOperator(ctx, home, operatorCommand{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	events, err := s.subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	km := keymap.Default()
	app := ui.New(ui.Options{Context: ctx, Runtime: s, Keys: km, Styles: themes.New(r, themes.Dark()),
		Profile: termenv.Ascii, Endpoint: s.endpoint(), Client: s.clientName(), Cwd: work, Timeout: 10 * time.Second, Location: time.UTC})
	tm := teatest.NewTestModel(t, app, teatest.WithInitialTermSize(130, 40))
	go func() {
		for ev := range events {
			tm.Send(ui.EventMsg(ev))
		}
	}()
	// The output is kept whole; each wait looks at what came after the last key press, so a
	// frame that arrived together with an earlier one is never missed.
	var all bytes.Buffer
	mark := 0
	drain := func() {
		b, _ := io.ReadAll(tm.Output())
		all.Write(b)
	}
	waitFor := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			drain()
			ok := true
			for _, w := range want {
				ok = ok && bytes.Contains(all.Bytes()[mark:], []byte(w))
			}
			if ok {
				return
			}
			if time.Now().After(deadline) {
				// What the app wrote, not app.View(): the program's goroutine draws meanwhile,
				// and a race report would fail the tests running beside this one too.
				t.Fatalf("waited for %q; the app showed since the last key:\n%s", want, all.Bytes()[mark:])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	act := func(f func()) {
		drain()
		mark = all.Len()
		f()
	}
	press := func(b keymapBinding) { act(func() { tm.Send(keymap.MustMsg(b.Keys()[0])) }) }
	typeText := func(s string) { act(func() { tm.Type(s) }) }

	waitFor("codexhost threads", "no sessions")

	// Delegate with nothing selected: the operator's client is the origin.
	press(km.Thread.Delegate)
	waitFor("[codex]", "shell")
	press(km.Input.NextPick)
	waitFor("[shell]")
	press(km.Input.NextField)
	typeText("hello from the app")
	press(km.Input.Submit)
	waitFor("delegated to shell")
	// The new thread shows in the fleet, gets selected, and its transcript arrives live.
	waitFor("(shell)", "▌ hello from the app", "◆ assistant")

	press(km.Thread.Send)
	waitFor("Send a message")
	typeText("second message")
	press(km.Input.Submit)
	waitFor("sent to")
	waitFor("▌ second message")

	// A delegation from the selected thread grows its lineage.
	press(km.Thread.Delegate)
	waitFor("[codex]")
	press(km.Input.NextPick)
	press(km.Input.NextField)
	typeText("child task")
	press(km.Input.Submit)
	waitFor("delegated to shell")
	waitFor("Lineage · 2 threads")

	// Watch a thread that runs until its gate opens; the notification lands in the status bar.
	slow := delegate(t, s, api.DelegateStartParams{Harness: "slow", Task: "slow task", Cwd: work})
	press(km.Global.Open)
	waitFor("Open a thread")
	typeText(slow)
	press(km.Input.Submit)
	// Its transcript, not only its fleet row (which shows it running as soon as the event
	// arrives), says the open has finished and the thread is the one selected.
	waitFor("● running", "▌ slow task")
	press(km.Thread.Watch)
	waitFor("Watch a thread")
	press(km.Input.Submit)
	waitFor("is notified when it stops")
	waitFor("● watching")
	act(func() {
		if err := os.WriteFile(filepath.Join(work, "gate"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	waitFor("notified: " + slow[:8])

	// Archive is for native sessions; an external thread is refused before any dialog.
	press(km.Thread.Archive)
	waitFor("only native Codex sessions")

	press(km.Global.Quit)
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

type keymapBinding interface{ Keys() []string }

var _ tea.Model = (*ui.App)(nil)

// serveRuntime opens a runtime on home with environ and serves it until the test ends.
func serveRuntime(t testing.TB, home string, environ []string) *runtime.Host {
	t.Helper()
	host, err := runtime.Open(context.Background(), runtime.Options{Home: home, CLIPath: "/bin/false", Environ: environ})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		defer close(served)
		_ = host.Serve(ctx)
	}()
	t.Cleanup(func() {
		stop()
		_ = host.Close()
		<-served
	})
	return host
}
