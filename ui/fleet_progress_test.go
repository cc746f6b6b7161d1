package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// pumpWait bounds a wait of the pump; it is only reached when something is broken.
const pumpWait = 10 * time.Second

// progressFake is fakeRuntime whose catalog.sessions, asked for progress, sends the fast
// host's page as an event at once, then waits to be released and answers with the aggregate
// of every host. The slow host has no event of its own, so only the aggregate can show it.
type progressFake struct {
	*fakeRuntime
	fast    api.CatalogHostSessions
	release chan struct{}
}

func (p *progressFake) CallEvents(ctx context.Context, method string, params, out any, fn func(api.Event)) error {
	if sp, ok := params.(api.CatalogSessionsParams); ok && method == api.MethodCatalogSessions && sp.Progress {
		fn(api.Event{Type: api.EventCatalogHost, Catalog: &p.fast})
		select {
		case <-p.release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return p.Call(ctx, method, params, out)
}

// pump runs an app as the program loop does, commands concurrently, while the test decides
// when to look: unlike testApp.run, a command that blocks holds nothing else back.
type pump struct {
	t    *testing.T
	ta   *testApp
	msgs chan tea.Msg
}

func (p *pump) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { p.msgs <- cmd() }()
}

// until feeds messages to the app until cond holds.
func (p *pump) until(what string, cond func() bool) {
	p.t.Helper()
	for !cond() {
		select {
		case msg := <-p.msgs:
			switch msg := msg.(type) {
			case nil, spinner.TickMsg:
			case tea.BatchMsg:
				for _, c := range msg {
					p.exec(c)
				}
			default:
				_, cmd := p.ta.Update(msg)
				p.exec(cmd)
			}
		case <-time.After(pumpWait):
			p.t.Fatalf("waited in vain for %s; fleet:\n%s", what, p.ta.fleet.View())
		}
	}
}

// Scenario: S003-L — progressive per-host results in the terminal app: the fleet shows a
// host's rows as soon as that host settled, while a slow host still loads; the call's
// aggregate answer is the final state: it completes the hosts no event brought, without
// undoing what was shown or loaded meanwhile (here a second page of the fast host).
func TestFleetShowsEachHostsRowsAsSoonAsItSettles(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
		return api.CatalogHostsResult{Hosts: []api.CatalogHost{
			{ID: "gateway:local", Kind: "local", Default: true, Health: api.CatalogHealth{State: api.CatalogHealthUnknown}},
			{ID: "node:lab", Kind: "local", Health: api.CatalogHealth{State: api.CatalogHealthUnknown}},
		}}, nil
	})
	row := func(i int, title string) api.CatalogSession {
		return api.CatalogSession{ID: fmt.Sprintf("019a0000-0000-7000-8000-%012d", i), Title: title, Status: model.ThreadIdle, UpdatedAt: epoch}
	}
	pf := &progressFake{fakeRuntime: rt, release: make(chan struct{}),
		fast: api.CatalogHostSessions{Host: "gateway:local", Sessions: []api.CatalogSession{row(1, "fast host first"), row(2, "fast host second")}, NextCursor: "c1"},
	}
	slow := api.CatalogHostSessions{Host: "node:lab", Sessions: []api.CatalogSession{row(9, "slow host session")}}
	rt.on(api.MethodCatalogSessions, func(raw json.RawMessage) (any, error) {
		var p api.CatalogSessionsParams
		_ = json.Unmarshal(raw, &p)
		if p.Cursor == "c1" {
			return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: []api.CatalogSession{row(3, "fast host page two")}}}}, nil
		}
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{pf.fast, slow}}, nil
	})

	km := keymap.Default()
	clk := &clock{t: epoch}
	ta := &testApp{App: New(Options{Runtime: pf, Keys: km, Styles: asciiStyles(), Profile: termenv.Ascii, Endpoint: "unix:///home/runtime.sock",
		Client: "local", Cwd: "/work", Now: clk.now, Timeout: pumpWait, Location: time.UTC}), t: t, rt: rt, clk: clk, km: km}
	ta.send(tea.WindowSizeMsg{Width: 130, Height: 34})
	p := &pump{t: t, ta: ta, msgs: make(chan tea.Msg, 64)}
	p.exec(ta.Init())

	// catalog.hosts answers on its own; wait for it too, so the slow host has its line.
	p.until("the fast host's rows", func() bool {
		return containsAll(ta.fleet.View(), "fast host first", "fast host second", "node:lab")
	})
	v := ta.fleet.View()
	// The slow host is still inside its list: the fake has not been released.
	mustContain(t, v, "gateway:local  ✓ ok · 2", "node:lab  … loading · 0")
	mustNotContain(t, v, "slow host session")
	params := callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if len(params) != 0 {
		t.Fatalf("the first pages were answered before the slow host settled: %+v", params)
	}

	// The operator goes on with the fast host meanwhile: its next page loads.
	ta.press(ta.km.List.Top)
	for range 2 {
		ta.press(ta.km.List.Down)
	}
	mustContain(t, ta.fleet.View(), "fast host page two")

	close(pf.release)
	p.until("the aggregate's answer", func() bool { return containsAll(ta.fleet.View(), "slow host session") })
	mustContain(t, ta.fleet.View(), "gateway:local  ✓ ok · 3", "fast host page two", "node:lab  ✓ ok · 1")
	calls := callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if len(calls) != 2 || !calls[1].Progress || calls[1].Cursor != "" {
		t.Fatalf("catalog calls %+v", calls)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// Scenario: S003-L — the fleet reconciles its visible pages at most every 30 s (a timer
// tick earlier than that, or right after a reload the user asked for, reads nothing), and on
// focus; sessions another Codex client made then appear.
func TestFleetReconcilesAtMostEvery30sAndOnFocus(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	lists := func() int { return len(callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)) }
	start := lists()

	a.clk.advance(ReconcileEvery - time.Second)
	a.send(reconcileMsg{})
	if lists() != start {
		t.Fatal("a tick before 30 s read the catalog again")
	}
	a.clk.advance(time.Second)
	a.send(reconcileMsg{})
	if lists() != start+1 {
		t.Fatalf("a tick at 30 s made %d reads, want 1", lists()-start)
	}
	// A reload the user asks for counts: the next tick 30 s after the last tick but 10 s
	// after that reload reads nothing.
	a.clk.advance(20 * time.Second)
	a.press(a.km.Global.Refresh)
	reloaded := lists()
	a.clk.advance(10 * time.Second)
	a.send(reconcileMsg{})
	if lists() != reloaded {
		t.Fatal("a tick 10 s after a refresh read the catalog again")
	}
	// Focus reads the pages again once they are a little old; a session made elsewhere shows.
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: []api.CatalogSession{
			{ID: idC, Title: "made in another client", Status: model.ThreadNotLoaded, UpdatedAt: epoch}}}}}, nil
	})
	a.send(tea.FocusMsg{})
	if lists() != reloaded+1 {
		t.Fatal("focus did not read the catalog again")
	}
	mustContain(t, a.fleet.View(), "made in another client")
	a.send(tea.FocusMsg{})
	if lists() != reloaded+1 {
		t.Fatal("a second focus at once read the catalog again")
	}
}

// The status bar agrees with the host lines: a host catalog.hosts had not tried yet ("?")
// shows the outcome of its first page, an error or ok.
func TestStatusBarHealthFollowsTheFirstPages(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
		return api.CatalogHostsResult{Hosts: []api.CatalogHost{
			{ID: "gateway:local", Kind: api.CatalogHostLocal, Default: true, Health: api.CatalogHealth{State: api.CatalogHealthUnknown}},
			{ID: "node:lab", Kind: api.CatalogHostNode, Health: api.CatalogHealth{State: api.CatalogHealthUnknown}},
		}}, nil
	})
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{
			{Host: "gateway:local", Sessions: []api.CatalogSession{}, Error: &model.Error{Code: model.CodeAppServerUnavailable, Message: "codex not found"}},
			{Host: "node:lab", Sessions: []api.CatalogSession{{ID: idA, Title: "node row", Status: model.ThreadIdle, UpdatedAt: epoch}}},
		}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	lines := strings.Split(a.view(), "\n")
	bar := lines[len(lines)-2]
	mustContain(t, bar, "gateway:local ✗", "node:lab ✓")
}

// Hosts show in the runtime's order (the default host first), not in the order their pages
// settled: a dead node fails fast, yet stays after gateway:local.
func TestFleetKeepsTheRuntimesHostOrder(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	pf := &progressFake{fakeRuntime: rt, release: make(chan struct{}),
		fast: api.CatalogHostSessions{Host: "node:lab", Sessions: []api.CatalogSession{}, Error: &model.Error{Code: model.CodeNodeOffline, Message: "node lab is offline"}}}
	close(pf.release)
	// catalog.hosts answers last, so the order comes from the sessions answer alone.
	hostsGate := make(chan struct{})
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
		<-hostsGate
		return api.CatalogHostsResult{Hosts: []api.CatalogHost{{ID: "gateway:local", Default: true}, {ID: "node:lab"}}}, nil
	})
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{
			{Host: "gateway:local", Sessions: []api.CatalogSession{{ID: idA, Title: "local row", Status: model.ThreadIdle, UpdatedAt: epoch}}},
			pf.fast,
		}}, nil
	})
	km := keymap.Default()
	clk := &clock{t: epoch}
	ta := &testApp{App: New(Options{Runtime: pf, Keys: km, Styles: asciiStyles(), Profile: termenv.Ascii, Endpoint: "unix:///home/runtime.sock",
		Client: "local", Cwd: "/work", Now: clk.now, Timeout: pumpWait, Location: time.UTC}), t: t, rt: rt, clk: clk, km: km}
	ta.send(tea.WindowSizeMsg{Width: 130, Height: 34})
	p := &pump{t: t, ta: ta, msgs: make(chan tea.Msg, 64)}
	p.exec(ta.Init())
	p.until("both hosts", func() bool { return containsAll(ta.fleet.View(), "local row", "NODE_OFFLINE") })
	v := ta.fleet.View()
	close(hostsGate)
	if strings.Index(v, "gateway:local") > strings.Index(v, "node:lab") {
		t.Fatalf("node:lab shows before the default host:\n%s", v)
	}
}
