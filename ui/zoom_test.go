package ui

import (
	"strings"
	"testing"
)

func shownPanes(a *App) []paneID {
	var ids []paneID
	for id := paneFleet; id < paneCount; id++ {
		if a.shown[id] {
			ids = append(ids, id)
		}
	}
	return ids
}

func TestZoomGivesTheFocusedPaneTheScreenAndBack(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{120, 35}, {80, 24}} {
		rt := newFake()
		fleetFixture(rt)
		a := newTestApp(t, rt, size[0], size[1])
		before := shownPanes(a.App)
		a.press(a.km.Global.Zoom)
		if got := shownPanes(a.App); len(got) != 1 || got[0] != paneFleet || a.rects[paneFleet] != (rect{0, 0, size[0], size[1] - 2}) {
			t.Fatalf("%v: zoomed shows %v at %+v", size, got, a.rects[paneFleet])
		}
		lines := strings.Split(a.view(), "\n")
		mustContain(t, lines[len(lines)-2], "zoom")
		mustContain(t, lines[len(lines)-1], "unzoom")
		// Focus moves keep the zoom.
		a.press(a.km.Global.NextPane)
		if got := shownPanes(a.App); len(got) != 1 || got[0] != paneTranscript {
			t.Fatalf("%v: after tab, zoomed shows %v", size, got)
		}
		a.press(a.km.Global.Zoom)
		if a.zoomed || len(shownPanes(a.App)) < 2 {
			t.Fatalf("%v: z again left %v shown", size, shownPanes(a.App))
		}
		if size[0] >= wideWidth && len(shownPanes(a.App)) != len(before) {
			t.Fatalf("unzoomed shows %v, before %v", shownPanes(a.App), before)
		}
		mustNotContain(t, strings.Split(a.view(), "\n")[size[1]-2], "zoom")
	}
}

// Esc leaves the zoom, after it has cleared what the pane uses it for.
func TestEscLeavesZoomAfterClearingTheSearch(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.Fleet.Search)
	a.typeText("release")
	a.press(a.km.Input.Submit)
	a.press(a.km.Global.Zoom)
	a.press(a.km.Input.Cancel)
	if !a.zoomed || a.fleet.query != "" {
		t.Fatalf("first esc: zoomed %v, query %q", a.zoomed, a.fleet.query)
	}
	a.press(a.km.Input.Cancel)
	if a.zoomed {
		t.Fatal("second esc did not leave the zoom")
	}
}
