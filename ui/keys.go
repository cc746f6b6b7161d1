package ui

import (
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
