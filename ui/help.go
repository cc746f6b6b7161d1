package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/codexhost/codexhost/keymap"
)

// navHelp is a help-only entry for a pair of keys ("↑/k ↓/j move").
func navHelp(a, b key.Binding, desc ...string) key.Binding {
	d := "move"
	if len(desc) > 0 {
		d = desc[0]
	}
	keys := append(append([]string(nil), a.Keys()...), b.Keys()...)
	nb := key.NewBinding(key.WithKeys(keys...), key.WithHelp(a.Help().Key+" "+b.Help().Key, d))
	if !a.Enabled() && !b.Enabled() {
		nb.SetEnabled(false)
	}
	return nb
}

var scopeTitles = map[string]string{
	keymap.ScopeGlobal:     "Everywhere",
	keymap.ScopeThread:     "Selected thread",
	keymap.ScopeTasks:      "Tasks",
	keymap.ScopeList:       "Lists",
	keymap.ScopeFleet:      "Fleet",
	keymap.ScopeTranscript: "Transcript",
	keymap.ScopeLineage:    "Lineage",
	keymap.ScopeDialog:     "Yes/no dialogs",
	keymap.ScopeApproval:   "Approvals",
	keymap.ScopeInput:      "Forms and search",
	keymap.ScopeSetup:      "Codex setup",
}

// helpLines is the full help, built from the keymap so that rebound keys show as bound.
func helpLines(c *common, w int) []string {
	st := c.st
	type section struct{ lines []string }
	var sections []section
	scope := ""
	keyW := 10
	colW := 30
	for _, a := range c.keys.Actions() {
		if !a.Binding.Enabled() {
			continue
		}
		if a.Scope != scope {
			scope = a.Scope
			sections = append(sections, section{lines: []string{st.HelpSection.Render(scopeTitles[scope])}})
		}
		h := a.Binding.Help()
		line := st.HelpKey.Render(pad(h.Key, keyW)) + " " + st.HelpDesc.Render(truncate(h.Desc, colW-keyW-2))
		s := &sections[len(sections)-1]
		s.lines = append(s.lines, line)
	}
	// Flow the sections into as many columns as fit.
	cols := max(1, w/colW)
	total := 0
	for _, s := range sections {
		total += len(s.lines) + 1
	}
	perCol := (total + cols - 1) / cols
	var columns [][]string
	var cur []string
	for _, s := range sections {
		if len(cur) > 0 && len(cur)+len(s.lines) > perCol && len(columns) < cols-1 {
			columns = append(columns, cur)
			cur = nil
		}
		cur = append(cur, s.lines...)
		cur = append(cur, "")
	}
	columns = append(columns, cur)
	rows := 0
	for _, col := range columns {
		rows = max(rows, len(col))
	}
	out := make([]string, 0, rows+2)
	out = append(out, st.HelpSection.Render("Keys")+st.Muted.Render(" · rebind them in config.toml [keys], e.g. \"thread.archive\" = \"A\""))
	for r := 0; r < rows; r++ {
		var b strings.Builder
		for _, col := range columns {
			cell := ""
			if r < len(col) {
				cell = col[r]
			}
			b.WriteString(pad(cell, colW))
		}
		out = append(out, b.String())
	}
	return out
}
