package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func click(x, y int) tea.MouseMsg {
	return tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft}
}

func wheel(x, y, steps int) tea.MouseMsg {
	b := tea.MouseButtonWheelDown
	if steps < 0 {
		b = tea.MouseButtonWheelUp
	}
	return tea.MouseMsg{X: x, Y: y, Action: tea.MouseActionPress, Button: b}
}

// inner is the screen cell of row y, column x inside pane id's frame.
func inner(a *testApp, id paneID, x, y int) (int, int) {
	r := a.rects[id]
	return r.x + 1 + x, r.y + 1 + y
}

func TestPaneAtMapsCellsInBothLayoutsAndTheZoom(t *testing.T) {
	t.Parallel()
	type probe struct {
		x, y   int
		id     paneID
		inside bool
		ok     bool
	}
	wide := []probe{
		{0, 0, paneFleet, false, true}, {1, 1, paneFleet, true, true}, {53, 10, paneFleet, false, true},
		{5, 25, paneTasks, true, true}, {60, 5, paneTranscript, true, true}, {55, 20, paneLineage, true, true},
		{100, 20, paneWatches, true, true}, {100, 30, paneUndeliverable, true, true},
		{5, 33, 0, false, false}, {5, 34, 0, false, false}, // the status bar and the key line
	}
	compact := []probe{
		{1, 1, paneFleet, true, true}, {31, 5, paneFleet, false, true}, {40, 5, paneTranscript, true, true},
		{79, 21, paneTranscript, false, true}, {40, 22, 0, false, false},
	}
	check := func(name string, a *testApp, ps []probe) {
		t.Helper()
		for _, p := range ps {
			h, ok := a.paneAt(p.x, p.y)
			if ok != p.ok || (ok && (h.id != p.id || h.inside != p.inside)) {
				t.Errorf("%s: (%d,%d) = %+v %v, want pane %d inside %v ok %v", name, p.x, p.y, h, ok, p.id, p.inside, p.ok)
			}
		}
	}
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	check("120x35", a, wide)
	if h, _ := a.paneAt(1, 1); h.x != 0 || h.y != 0 {
		t.Fatalf("the first cell inside the fleet is %+v", h)
	}
	// Every cell of every shown pane maps to that pane.
	for id := paneFleet; id < paneCount; id++ {
		r := a.rects[id]
		for y := r.y; y < r.y+r.h; y++ {
			for x := r.x; x < r.x+r.w; x++ {
				if h, ok := a.paneAt(x, y); !ok || h.id != id {
					t.Fatalf("(%d,%d) in pane %d maps to %+v", x, y, id, h)
				}
			}
		}
	}
	b := newTestApp(t, rt, 80, 24)
	check("80x24", b, compact)
	b.press(b.km.Global.Watches)
	check("80x24, watches shown", b, []probe{{40, 5, paneWatches, true, true}})
	b.press(b.km.Global.Zoom)
	check("80x24 zoomed", b, []probe{{1, 1, paneWatches, true, true}, {79, 21, paneWatches, false, true}})
}

func TestClickFocusesAndSelectsRowsAndASecondClickOpens(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.Global.Transcript)
	// Fleet lines: gateway:local header, its three sessions, then the node.
	a.send(click(inner(a, paneFleet, 5, 3)))
	if a.focus != paneFleet {
		t.Fatalf("focus %d after a click on the fleet", a.focus)
	}
	if ref, _ := a.fleet.Selected(); ref.ID != idC {
		t.Fatalf("click selected %s", ref.ID)
	}
	a.send(click(inner(a, paneFleet, 5, 0))) // a header is no row: nothing moves
	if ref, _ := a.fleet.Selected(); ref.ID != idC {
		t.Fatalf("a header click moved to %s", ref.ID)
	}
	a.send(click(inner(a, paneFleet, 5, 3)))
	if a.focus != paneTranscript || a.transcript.ref.ID != idC {
		t.Fatalf("a second click did not open the row: focus %d, transcript %s", a.focus, a.transcript.ref.ID)
	}

	// The lineage and the watch lists select their rows too.
	a.send(threadSelectedMsg{ref: threadRef{ID: idShell, Harness: "shell"}})
	a.send(click(inner(a, paneLineage, 3, 1)))
	if ref, _ := a.lineage.Selected(); a.focus != paneLineage || ref.ID != idChild {
		t.Fatalf("lineage click: focus %d, selected %s", a.focus, ref.ID)
	}
	a.send(click(inner(a, paneUndeliverable, 3, 0)))
	if w, ok := a.undeliv.current(); a.focus != paneUndeliverable || !ok || w.ID != "w2" {
		t.Fatalf("undeliverable click: focus %d, %+v", a.focus, w)
	}
	a.send(click(inner(a, paneTasks, 3, 0)))
	if a.focus != paneTasks {
		t.Fatalf("tasks click: focus %d", a.focus)
	}
}

func TestWheelScrollsThePaneUnderThePointer(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.List.Select)
	tr := a.transcript
	tr.SetSize(tr.w, 8) // shorter than the transcript, so that it scrolls
	tr.settle()
	bottom := tr.offset
	if bottom < 2*wheelLines {
		t.Fatalf("transcript too short to scroll: offset %d", bottom)
	}
	x, y := inner(a, paneTranscript, 3, 3)
	a.send(wheel(x, y, -1))
	if tr.offset != bottom-wheelLines || tr.follow {
		t.Fatalf("wheel up: offset %d (from %d), follow %v", tr.offset, bottom, tr.follow)
	}
	a.send(wheel(x, y, 1))
	if tr.offset != bottom {
		t.Fatalf("wheel down: offset %d, want %d", tr.offset, bottom)
	}
	// Over the fleet, the wheel moves its cursor without taking the focus.
	fx, fy := inner(a, paneFleet, 3, 3)
	a.send(wheel(fx, fy, 1))
	a.send(wheel(fx, fy, 1))
	if ref, _ := a.fleet.Selected(); ref.ID != idC || a.focus != paneTranscript {
		t.Fatalf("fleet wheel: selected %s, focus %d", ref.ID, a.focus)
	}
	a.send(tea.MouseMsg{X: 3, Y: 3, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp})
	if ref, _ := a.fleet.Selected(); ref.ID != idB {
		t.Fatalf("fleet wheel up: selected %s", ref.ID)
	}
}
