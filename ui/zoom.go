package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Zoom: z gives the focused pane the whole body and takes it back; focus moves keep the zoom
// and show the newly focused pane. Esc leaves too, unless the pane has a use for it right now
// (clearing a search).

func (a *App) zoomKey(k tea.KeyMsg) (tea.Cmd, bool) {
	km := a.c.keys
	switch {
	case key.Matches(k, km.Global.Zoom):
		a.setZoom(!a.zoomed)
	case a.zoomed && key.Matches(k, km.Input.Cancel) && !a.paneTakesEsc():
		a.setZoom(false)
	default:
		return nil, false
	}
	return nil, true
}

func (a *App) setZoom(on bool) {
	a.zoomed = on
	a.layout()
}

// paneTakesEsc reports that esc means something to the focused pane now.
func (a *App) paneTakesEsc() bool {
	switch a.focus {
	case paneFleet:
		return a.fleet.query != ""
	case paneTranscript:
		return a.transcript.search.active()
	}
	return false
}

// layoutZoomed gives the focused pane the body. The others take the same size, so that a
// focus move while zoomed shows the next pane at once.
func (a *App) layoutZoomed(bodyH int, set func(paneID, rect)) {
	for id := paneFleet; id < paneCount; id++ {
		a.panes[id].SetSize(a.w-2, bodyH-2)
	}
	set(a.focus, rect{0, 0, a.w, bodyH})
}

// zoomHelp is the zoom key for the footer, named for what it does now.
func (a *App) zoomHelp() key.Binding {
	z := a.c.keys.Global.Zoom
	if a.zoomed {
		z.SetHelp(z.Help().Key, "unzoom")
	}
	return z
}

// footerEnd is the keys the footer never cuts: how to leave the zoom while zoomed, help, quit.
func (a *App) footerEnd() []key.Binding {
	km := a.c.keys
	if a.zoomed {
		return []key.Binding{a.zoomHelp(), km.Global.Help, km.Global.Quit}
	}
	return []key.Binding{km.Global.Help, km.Global.Quit}
}
