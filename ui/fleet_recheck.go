package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// recheckMsg reads the fleet's pages again a moment after a thread it has not seen showed up.
type recheckMsg struct{}

// recheckSoon arms one recheckMsg, when the reconcile timer is on. A new native delegation
// sends its first events while the catalog is being read, or moments after, often before
// Codex lists the session: the read those events would start is refused as too recent, and
// without a second look the thread stays out of the fleet until the next 30 s tick.
func (f *fleetPane) recheckSoon() tea.Cmd {
	if f.recheckArmed || f.c.reconcile <= 0 {
		return nil
	}
	f.recheckArmed = true
	return tea.Tick(reconcileOnFocus, func(time.Time) tea.Msg { return recheckMsg{} })
}
