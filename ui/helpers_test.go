package ui

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/themes"
)

// fakeRuntime answers runtime calls from handlers, through JSON as the wire would.
type fakeRuntime struct {
	mu       sync.Mutex
	handlers map[string]func(params json.RawMessage) (any, error)
	calls    []recordedCall
}

type recordedCall struct {
	method string
	params json.RawMessage
}

func newFake() *fakeRuntime {
	return &fakeRuntime{handlers: map[string]func(json.RawMessage) (any, error){api.MethodThreadLineage: fakeLineage}}
}

func (f *fakeRuntime) on(method string, h func(params json.RawMessage) (any, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.handlers[method] = h
}

func (f *fakeRuntime) Call(ctx context.Context, method string, params, out any) error {
	raw, _ := json.Marshal(params)
	f.mu.Lock()
	f.calls = append(f.calls, recordedCall{method, raw})
	h := f.handlers[method]
	f.mu.Unlock()
	if h == nil {
		return model.Errorf(model.CodeInternal, "", "no fake for %s", method)
	}
	res, err := h(raw)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	b, _ := json.Marshal(res)
	return json.Unmarshal(b, out)
}

// callsTo returns the params of every call of method, decoded into T.
func callsTo[T any](f *fakeRuntime, method string) []T {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []T
	for _, c := range f.calls {
		if c.method == method {
			var p T
			_ = json.Unmarshal(c.params, &p)
			out = append(out, p)
		}
	}
	return out
}

// clock is an injected time source tests move by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// asciiStyles are the styles of a terminal without colour: goldens stay plain text.
func asciiStyles() themes.Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	return themes.New(r, themes.Dark())
}

type testApp struct {
	*App
	t   testing.TB
	rt  *fakeRuntime
	clk *clock
	km  keymap.KeyMap
}

func newTestApp(t testing.TB, rt *fakeRuntime, w, h int, opts ...func(*Options)) *testApp {
	t.Helper()
	clk := &clock{t: epoch}
	km := keymap.Default()
	o := Options{Runtime: rt, Keys: km, Styles: asciiStyles(), Profile: termenv.Ascii, Endpoint: "unix:///home/runtime.sock",
		Client: "local", Cwd: "/work", Now: clk.now, Timeout: time.Second, Grace: 400 * time.Millisecond,
		Location: time.UTC}
	for _, f := range opts {
		f(&o)
	}
	ta := &testApp{App: New(o), t: t, rt: rt, clk: clk, km: o.Keys}
	ta.send(tea.WindowSizeMsg{Width: w, Height: h})
	ta.run(ta.Init())
	return ta
}

// send delivers msg and runs what it returns to completion.
func (ta *testApp) send(msg tea.Msg) {
	ta.t.Helper()
	_, cmd := ta.Update(msg)
	ta.run(cmd)
}

// run executes a command and feeds its messages back until nothing is left, as the program
// loop would; spinner ticks are dropped so nothing waits on a timer.
func (ta *testApp) run(cmd tea.Cmd) {
	ta.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			ta.run(c)
		}
	case spinner.TickMsg, liveTickMsg:
	default:
		ta.send(msg)
	}
}

// press types the first key of a binding: tests go through the keymap, never literals.
func (ta *testApp) press(b key.Binding) {
	ta.t.Helper()
	ta.send(keymap.MustMsg(b.Keys()[0]))
}

func (ta *testApp) typeText(s string) {
	for _, r := range s {
		ta.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (ta *testApp) view() string { return ta.View() }

func mustContain(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Fatalf("missing %q in:\n%s", w, s)
		}
	}
}

func mustNotContain(t *testing.T, s string, bad ...string) {
	t.Helper()
	for _, w := range bad {
		if strings.Contains(s, w) {
			t.Fatalf("unexpected %q in:\n%s", w, s)
		}
	}
}

// Thread ids of the fixtures.
const (
	idA     = "019a0000-0000-7000-8000-0000000000a1"
	idB     = "019a0000-0000-7000-8000-0000000000b2"
	idC     = "019a0000-0000-7000-8000-0000000000c3"
	idShell = "11111111-2222-4333-8444-555555555555"
	idChild = "11111111-2222-4333-8444-666666666666"
)

// fleetFixture is a fleet with a healthy local host, a failing node and one external thread.
func fleetFixture(rt *fakeRuntime) {
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
		return api.CatalogHostsResult{Hosts: []api.CatalogHost{
			{ID: "gateway:local", Kind: "local", Default: true, Health: api.CatalogHealth{State: api.CatalogHealthOK}},
			{ID: "node:lab", Kind: "local", Health: api.CatalogHealth{State: api.CatalogHealthError, Code: "APP_SERVER_UNAVAILABLE", Message: "codex not found"}},
		}}, nil
	})
	rt.on(api.MethodCatalogSessions, func(raw json.RawMessage) (any, error) {
		var p api.CatalogSessionsParams
		_ = json.Unmarshal(raw, &p)
		all := []api.CatalogSession{
			{ID: idA, Title: "fix the flaky tests", Cwd: "/src/app", Status: model.ThreadIdle, GitBranch: "main", UpdatedAt: epoch.Add(-5 * time.Minute)},
			{ID: idB, Title: "write the release notes", Cwd: "/src/docs", Status: model.ThreadActive, WaitingOnApproval: true, GitBranch: "notes", UpdatedAt: epoch.Add(-3 * time.Hour)},
			{ID: idC, Title: "stored session", Cwd: "/src/old", Status: model.ThreadNotLoaded, UpdatedAt: epoch.Add(-50 * time.Hour)},
		}
		var rows []api.CatalogSession
		for _, s := range all {
			if p.Search == "" || strings.Contains(strings.ToLower(s.Title), strings.ToLower(p.Search)) {
				rows = append(rows, s)
			}
		}
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{
			{Host: "gateway:local", Sessions: rows},
			{Host: "node:lab", Sessions: []api.CatalogSession{}, Error: &model.Error{Code: "APP_SERVER_UNAVAILABLE", Message: "codex not found"}},
		}}, nil
	})
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) {
		return api.ThreadListResult{Threads: []model.ThreadInfo{
			{ID: idShell, Harness: "shell", Status: model.ThreadIdle, Cwd: "/work", UpdatedAt: epoch.Add(-time.Minute)},
		}}, nil
	})
	rt.on(api.MethodThreadWatches, func(json.RawMessage) (any, error) {
		return api.WatchesResult{
			Watching:      []model.Watch{{ID: "w1", Thread: idShell, Notify: "client:local", State: model.WatchWatching, Deadline: epoch.Add(29 * time.Minute)}},
			Pending:       []model.Watch{},
			Undeliverable: []model.Watch{{ID: "w2", Thread: idA, Notify: idChild, State: model.WatchUndeliverable, Result: model.ResultCompleted, Reason: "recipient thread is gone"}},
		}, nil
	})
	rt.on(api.MethodClientEvents, func(json.RawMessage) (any, error) { return api.ClientEventsResult{Events: []model.ClientEvent{}}, nil })
	rt.on(api.MethodCatalogTranscript, func(raw json.RawMessage) (any, error) {
		var p api.CatalogTranscriptParams
		_ = json.Unmarshal(raw, &p)
		return transcriptFixture(p.Thread, p.Cursor), nil
	})
	rt.on(api.MethodThreadRead, func(raw json.RawMessage) (any, error) {
		var p api.ThreadReadParams
		_ = json.Unmarshal(raw, &p)
		switch p.Thread {
		case idShell:
			return api.ThreadReadResult{Thread: model.ThreadInfo{ID: idShell, Harness: "shell", Status: model.ThreadIdle},
				Messages: []model.Message{
					{Role: model.RoleUser, Text: "count the files", TurnID: "t-1", At: epoch.Add(-2 * time.Minute)},
					{Role: model.RoleAssistant, Text: "There are **3** files.", TurnID: "t-1", At: epoch.Add(-time.Minute)},
				}}, nil
		case idA, idB, idC:
			return api.ThreadReadResult{Thread: model.ThreadInfo{ID: p.Thread, Harness: model.NativeHarness, Status: model.ThreadIdle}}, nil
		}
		return nil, model.Errorf(model.CodeThreadNotFound, "", "no thread %s", p.Thread)
	})
	rt.on(api.MethodTaskStatus, func(json.RawMessage) (any, error) { return api.TaskStatusResult{Tasks: []api.TaskInfo{}}, nil })
	rt.on(api.MethodHarnessList, func(json.RawMessage) (any, error) {
		return api.HarnessListResult{Harnesses: []api.HarnessInfo{{Name: "codex", Kind: "native"}, {Name: "shell", Kind: "external"}}}, nil
	})
}

// transcriptFixture has two pages: the newest (two turns) and an older one.
func transcriptFixture(thread, cursor string) api.CatalogTranscriptResult {
	at := func(m int) *time.Time { t := epoch.Add(time.Duration(m) * time.Minute); return &t }
	if cursor == "older-1" {
		return api.CatalogTranscriptResult{Host: "gateway:local", Thread: thread, Turns: []api.CatalogTurn{
			{ID: "turn-0", Status: model.TurnCompleted, StartedAt: at(-90), Messages: []model.Message{
				{Role: model.RoleUser, Text: "first question from long ago"},
				{Role: model.RoleAssistant, Text: "first answer"},
			}},
		}}
	}
	return api.CatalogTranscriptResult{Host: "gateway:local", Thread: thread, OlderCursor: "older-1", Turns: []api.CatalogTurn{
		{ID: "turn-1", Status: model.TurnCompleted, StartedAt: at(-30), Messages: []model.Message{
			{Role: model.RoleUser, Text: "why do the tests flake?"},
			{Role: model.RoleAssistant, Text: "Two reasons:\n\n- a **race** in the cache\n- a fixed `sleep`"},
		}},
		{ID: "turn-2", Status: model.TurnCompleted, StartedAt: at(-10), Messages: []model.Message{
			{Role: model.RoleUser, Text: "fix the race"},
			{Role: model.RoleAssistant, Text: "Done: the cache now takes a lock."},
		}},
	}}
}

// fakeLineage builds a small tree: idShell delegated idChild, which is the focus's family.
// fakeLineage answers thread.lineage: a shell root with one codex child, or the thread alone.
func fakeLineage(raw json.RawMessage) (any, error) {
	var p api.ThreadLineageParams
	_ = json.Unmarshal(raw, &p)
	thread := p.Thread
	root := model.ThreadInfo{ID: idShell, Harness: "shell", Status: model.ThreadIdle, Refs: []string{"https://example.com/issue/1"}}
	child := model.ThreadInfo{ID: idChild, Harness: "codex", Status: model.ThreadActive, Title: "child task"}
	lin := api.ThreadLineageResult{Focus: thread, Root: idShell, Nodes: []api.LineageNode{
		{Thread: root, Children: []string{idChild}},
		{Thread: child, Parent: idShell, Children: []string{}},
	}}
	if thread != idShell && thread != idChild {
		lin = api.ThreadLineageResult{Focus: thread, Root: thread, Nodes: []api.LineageNode{{Thread: model.ThreadInfo{ID: thread, Harness: "codex", Status: model.ThreadIdle}}}}
	}
	return lin, nil
}

func keyOf(b key.Binding) tea.KeyMsg { return keymap.MustMsg(b.Keys()[0]) }
