package ui

import tea "github.com/charmbracelet/bubbletea"

// refreshKey reads everything again and says when. The status bar's last line (an old error
// above all) is replaced, so that it no longer reads as current; errors the new reads meet
// show again as they arrive.
func (a *App) refreshKey() tea.Cmd {
	a.status.set(levelOK, "refreshed "+a.c.now().In(a.c.loc).Format("15:04:05"))
	return a.refreshAll()
}
