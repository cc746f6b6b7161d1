package ui

// setFocus moves the keyboard to pane id. In the compact layout a detail pane that gets
// focus also becomes the one shown beside the fleet.
func (a *App) setFocus(id paneID) {
	a.panes[a.focus].SetFocused(false)
	a.focus = id
	a.panes[id].SetFocused(true)
	if id != paneFleet && a.detail != id {
		a.detail = id
		a.layout()
	} else if a.zoomed {
		a.layout()
	}
}

// cycle moves focus d steps around the ring of panes.
func (a *App) cycle(d int) {
	n := int(paneCount)
	a.setFocus(paneID(((int(a.focus)+d)%n + n) % n))
}
