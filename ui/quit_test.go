package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// quits runs cmd and what it batches, and reports whether any of it quits the program; other
// messages are fed back to the app.
func (ta *testApp) quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		q := false
		for _, c := range msg {
			q = ta.quits(c) || q
		}
		return q
	case nil, spinner.TickMsg:
		return false
	default:
		_, next := ta.Update(msg)
		return ta.quits(next)
	}
}

func (ta *testApp) pressQuits(msg tea.KeyMsg) bool {
	_, cmd := ta.Update(msg)
	return ta.quits(cmd)
}

func runningThreads(rt *fakeRuntime, n int) {
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) {
		var ts []model.ThreadInfo
		ts = append(ts, model.ThreadInfo{ID: idShell, Harness: "shell", Status: model.ThreadIdle, UpdatedAt: epoch})
		for i := range n {
			ts = append(ts, model.ThreadInfo{ID: []string{idChild, idA, idB}[i], Harness: "codex", Title: "task " + itoa(i+1), Status: model.ThreadActive, UpdatedAt: epoch})
		}
		return api.ThreadListResult{Threads: ts}, nil
	})
}

// Scenario: issue 16 bug 1. q in an app that runs the runtime while turns run asks first,
// naming how many run and what quitting does to them; only y quits.
func TestQuitWithRunningTurnsAsksFirst(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	runningThreads(rt, 2)
	a := newTestApp(t, rt, 130, 34, func(o *Options) { o.Embedded = func() bool { return true } })
	if a.pressQuits(keyOf(a.km.Global.Quit)) {
		t.Fatal("q quit with two turns running")
	}
	v := a.confirm.title + " " + strings.Join(a.confirm.lines, " ")
	mustContain(t, a.view(), "Quit and interrupt 2 running turns?")
	mustContain(t, v, "2 turns are running", `"task 1"`, `"task 2"`,
		"those 2 turns end as interrupted", "codexhost serve")
	a.clk.advance(time.Second)
	if a.pressQuits(keyOf(a.km.Dialog.Cancel)) || a.confirm.open {
		t.Fatal("no did not cancel the quit")
	}
	a.pressQuits(keyOf(a.km.Global.Quit))
	a.clk.advance(time.Second)
	if !a.pressQuits(keyOf(a.km.Dialog.Confirm)) {
		t.Fatal("y did not quit")
	}
	// ctrl+c asks too, and quits when pressed again.
	a.pressQuits(keyOf(a.km.Global.ForceQuit))
	if !a.confirm.open || !a.pressQuits(keyOf(a.km.Global.ForceQuit)) {
		t.Fatal("ctrl+c twice did not quit")
	}
}

func TestQuitAsksNothingWhenNoTurnRunsOrTheRuntimeIsNotTheApps(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34, func(o *Options) { o.Embedded = func() bool { return true } })
	if !a.pressQuits(keyOf(a.km.Global.Quit)) {
		t.Fatal("q with nothing running did not quit")
	}
	runningThreads(rt, 1)
	b := newTestApp(t, rt, 130, 34) // attached to a runtime that goes on
	if !b.pressQuits(keyOf(b.km.Global.Quit)) {
		t.Fatal("q in an attached app did not quit")
	}
	n := len(callsTo[api.ThreadListParams](rt, api.MethodThreadList))
	c := newTestApp(t, rt, 130, 34, func(o *Options) { o.Embedded = func() bool { return true } })
	c.pressQuits(keyOf(c.km.Global.Quit))
	mustContain(t, c.view(), "Quit and interrupt 1 running turn?")
	mustContain(t, strings.Join(c.confirm.lines, " "), "1 turn is running", "that turn ends as interrupted")
	if got := len(callsTo[api.ThreadListParams](rt, api.MethodThreadList)); got <= n {
		t.Fatal("quitting did not ask the runtime")
	}
}

// Below the minimum size the small screen handles its own keys: q while turns run draws the
// quit question (before, it opened unseen while the screen still said "press q to quit"), y
// answers it, and any other key backs out.
func TestTooSmallDrawsAndAnswersTheQuitDialog(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 20}, {79, 23}, {40, 8}} {
		rt := newFake()
		fleetFixture(rt)
		runningThreads(rt, 1)
		a := newTestApp(t, rt, size[0], size[1], func(o *Options) { o.Embedded = func() bool { return true } })
		mustContain(t, a.view(), "terminal too small")
		if a.pressQuits(keyOf(a.km.Global.Quit)) {
			t.Fatal("q quit with a turn running")
		}
		v := a.view()
		mustContain(t, v, "Quit and interrupt", "y quit")
		mustNotContain(t, v, "terminal too small")
		for _, l := range strings.Split(v, "\n") {
			if w := ansiWidth(l); w > size[0] {
				t.Fatalf("%dx%d: line %d wide: %q", size[0], size[1], w, l)
			}
		}
		a.clk.advance(time.Second)
		if a.pressQuits(keyOf(a.km.Dialog.Cancel)) || a.confirm.open {
			t.Fatal("cancel did not close the question")
		}
		mustContain(t, a.view(), "terminal too small")
		a.pressQuits(keyOf(a.km.Global.Quit))
		a.clk.advance(time.Second)
		if !a.pressQuits(keyOf(a.km.Dialog.Confirm)) {
			t.Fatalf("%dx%d: y did not quit", size[0], size[1])
		}
	}
}

// While the small screen's q asks the runtime which turns run, it says so instead of still
// inviting the q that was pressed, and says nothing of it again once the question is drawn.
func TestTooSmallSaysItIsQuitting(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	runningThreads(rt, 1)
	a := newTestApp(t, rt, 60, 20, func(o *Options) { o.Embedded = func() bool { return true } })
	mustContain(t, a.view(), "press q to quit")
	_, check := a.Update(keyOf(a.km.Global.Quit)) // the check is in flight until it runs
	v := a.view()
	mustContain(t, v, "terminal too small", "quitting: checking for running turns")
	mustNotContain(t, v, "press q to quit")
	a.run(check)
	mustContain(t, a.view(), "Quit and interrupt 1 running turn?")
	mustNotContain(t, a.view(), "checking for running turns")
}
