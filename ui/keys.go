package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// handleKeys takes one key message. Fast typing, key repeat and a slow link can deliver
// several runes in one message ("jjj"); unless a text input has the keyboard (it takes them
// as typed text) or they were pasted, each rune acts as the key it is.
func (a *App) handleKeys(k tea.KeyMsg) tea.Cmd {
	if k.Type != tea.KeyRunes || len(k.Runes) < 2 || k.Paste || a.textInputOpen() {
		return a.handleKey(k)
	}
	cmds := make([]tea.Cmd, 0, len(k.Runes))
	for i, r := range k.Runes {
		if a.textInputOpen() {
			// An earlier rune opened a form or the search line: the rest is its text.
			cmds = append(cmds, a.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: k.Runes[i:]}))
			break
		}
		cmds = append(cmds, a.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt}))
	}
	return tea.Batch(cmds...)
}

// textInputOpen reports a form or a pane's text input taking the keyboard.
func (a *App) textInputOpen() bool {
	return a.form.open || a.panes[a.focus].Capturing()
}

// actionKey gives a key no global binding took to the view keys, the keys of the tasks and
// the selected thread, and last to the focused pane p.
func (a *App) actionKey(k tea.KeyMsg, p pane) tea.Cmd {
	for _, try := range []func(tea.KeyMsg) (tea.Cmd, bool){a.zoomKey, a.infoKey, a.taskKey, a.continueKey, a.copyKey, a.threadKey} {
		if cmd, ok := try(k); ok {
			return cmd
		}
	}
	return p.Update(k)
}

// viewerKey gives a key to the detail view or the help when one is open: they scroll with
// the list keys and close on any other.
func (a *App) viewerKey(k tea.KeyMsg) bool {
	km := a.c.keys
	switch {
	case a.details.open:
		a.details.HandleKey(k)
	case !a.showHelp:
		return false
	case key.Matches(k, km.List.Down):
		a.helpOff++
	case key.Matches(k, km.List.Up):
		a.helpOff = max(a.helpOff-1, 0)
	default:
		a.showHelp = false
	}
	return true
}
