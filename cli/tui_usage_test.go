package cli

import (
	"context"
	"io"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/themes"
	"github.com/codexhost/codexhost/ui"
)

// countingRuntime is the app's runtime connection, counting the calls of each method.
type countingRuntime struct {
	s  *operatorSession
	mu sync.Mutex
	n  map[string]int
}

func (c *countingRuntime) count(method string) {
	c.mu.Lock()
	c.n[method]++
	c.mu.Unlock()
}

func (c *countingRuntime) calls(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

func (c *countingRuntime) Call(ctx context.Context, method string, params, out any) error {
	c.count(method)
	return c.s.Call(ctx, method, params, out)
}

func (c *countingRuntime) CallEvents(ctx context.Context, method string, params, out any, fn func(api.Event)) error {
	c.count(method)
	return c.s.CallEvents(ctx, method, params, out, fn)
}

// waitThread waits until a thread's turn stopped.
func waitThread(t testing.TB, s *operatorSession, id string) {
	t.Helper()
	var res api.ThreadReadResult
	p := api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(30000)}
	if err := s.Call(context.Background(), api.MethodThreadWait, p, &res); err != nil {
		t.Fatal(err)
	}
}

// waitForRows waits until a whole screen shows a line matching each pattern, drawing it anew
// each second (what an event left unchanged is in no later frame).
func waitForRows(d *appDriver, patterns ...string) {
	d.t.Helper()
	res := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		res[i] = regexp.MustCompile(p)
	}
	for range 30 {
		d.repaint()
		time.Sleep(time.Second)
		out := d.since()
		ok := true
		for _, re := range res {
			ok = ok && re.Match(out)
		}
		if ok {
			return
		}
	}
	d.t.Fatalf("waited for a screen with rows %q; the last one:\n%s", patterns, d.since())
}

// A real App Server turn's thread/tokenUsage/updated reaches the terminal app as it arrives:
// the fleet's usage column and the lineage pane's tree total show the new counts, and the
// app reads neither the thread list, the host's sessions nor the lineage again for them.
func TestTerminalAppShowsUsageLiveFromARealTurn(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	home, _ := appHomeWith(t, append(codextest.Env(codexHome), "CODEXHOST_CODEX_BIN="+bin))
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	s, err := openOperator(ctx, home, operatorCommand{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)

	cwd := t.TempDir()
	root := delegate(t, s, api.DelegateStartParams{Harness: "codex", Task: "root [[usage:1000/0/200/0]]", Cwd: cwd})
	waitThread(t, s, root)
	child := delegate(t, s, api.DelegateStartParams{Caller: api.CallerHint{ParentThread: root}, Harness: "codex", Task: "child [[usage:300/0/40/0]]", Cwd: cwd})
	waitThread(t, s, child)

	events, err := s.subscribe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rt := &countingRuntime{s: s, n: map[string]int{}}
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	km := keymap.Default()
	app := ui.New(ui.Options{Context: ctx, Runtime: rt, Keys: km, Styles: themes.New(r, themes.Dark()),
		Profile: termenv.Ascii, Endpoint: s.endpoint(), Client: s.clientName(), Cwd: cwd, Timeout: 20 * time.Second, Location: time.UTC})
	tm := teatest.NewTestModel(t, app, teatest.WithInitialTermSize(160, 45))
	usage := make(chan struct{}, 16)
	go func() {
		for ev := range events {
			if ev.Type == api.EventThreadUsage && ev.Thread == root {
				usage <- struct{}{}
			}
			tm.Send(ui.EventMsg(ev))
		}
	}()
	d := &appDriver{t: t, tm: tm, app: app, w: 160, h: 45}

	// Select the child: the fleet shows each thread's recorded usage, the lineage pane the
	// tree's total.
	d.press(km.Global.Open)
	d.waitFor("Open a thread")
	d.typeText(child)
	d.press(km.Input.Submit)
	d.waitForScreen("Lineage · 2 threads", "tree 1.5k tok")
	waitForRows(d, `root \[\[usage:1000/0/200/0\]\] +1\.2k `, `child \[\[usage:300/0/40/0\]\] +340 `)
	lists, lineages, pages := rt.calls(api.MethodThreadList), rt.calls(api.MethodThreadLineage), rt.calls(api.MethodCatalogSessions)

	// Another turn of the root: 2000 input and 300 output tokens more.
	d.act(func() {
		var res api.ThreadSendResult
		if err := s.Call(ctx, api.MethodThreadSend, api.ThreadSendParams{Thread: root, Message: "more [[usage:2000/0/300/0]]"}, &res); err != nil {
			t.Fatal(err)
		}
	})
	select {
	case <-usage:
	case <-time.After(30 * time.Second):
		t.Fatal("no thread.usage event of the root's turn")
	}
	waitThread(t, s, root)
	d.waitForScreen("tree 3.8k tok")
	waitForRows(d, `root \[\[usage:1000/0/200/0\]\] +3\.5k `, `child \[\[usage:300/0/40/0\]\] +340 `)
	if n := rt.calls(api.MethodThreadList); n != lists {
		t.Errorf("the usage update read thread.list again (%d -> %d calls)", lists, n)
	}
	if n := rt.calls(api.MethodThreadLineage); n != lineages {
		t.Errorf("the usage update read thread.lineage again (%d -> %d calls)", lineages, n)
	}
	if n := rt.calls(api.MethodCatalogSessions); n != pages {
		t.Errorf("the usage update read catalog.sessions again (%d -> %d calls)", pages, n)
	}
	d.press(km.Global.Quit)
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}
