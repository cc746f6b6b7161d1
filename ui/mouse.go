package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/keymap"
)

// The mouse: a click focuses the pane under the pointer and selects the row clicked; a
// second click on the selected row of the focused pane acts as enter. The wheel scrolls the
// pane under the pointer, focused or not: lists move their cursor a row, the transcript
// scrolls wheelLines lines. Dialogs and forms answer to keys alone.

// wheelLines is how far one wheel step scrolls a transcript or the help.
const wheelLines = 3

// paneHit is where a screen cell falls: which pane, and the cell inside its frame.
type paneHit struct {
	id     paneID
	x, y   int  // inside the frame, from its top left; meaningful when inside
	inside bool // false on the frame itself (title and borders)
}

// paneAt maps screen cell (x, y) to the shown pane under it, from the rectangles the layout
// gave the panes: both layouts, and the zoom, are what layout() decided.
func (a *App) paneAt(x, y int) (paneHit, bool) {
	if a.tooSmall || a.w <= 0 {
		return paneHit{}, false
	}
	for id := paneFleet; id < paneCount; id++ {
		r := a.rects[id]
		if !a.shown[id] || x < r.x || x >= r.x+r.w || y < r.y || y >= r.y+r.h {
			continue
		}
		h := paneHit{id: id, x: x - r.x - 1, y: y - r.y - 1}
		h.inside = h.x >= 0 && h.x < r.w-2 && h.y >= 0 && h.y < r.h-2
		return h, true
	}
	return paneHit{}, false
}

// rowClicker is a pane whose rows a click selects: same reports that the row was already
// the selected one.
type rowClicker interface {
	clickRow(y int) (cmd tea.Cmd, same bool)
}

// wheeler is a pane the wheel scrolls, by steps (negative: up).
type wheeler interface {
	wheel(steps int) tea.Cmd
}

func (a *App) handleMouse(m tea.MouseMsg) tea.Cmd {
	if m.Action != tea.MouseActionPress || a.confirm.open || a.form.open {
		return nil
	}
	steps := 0
	switch m.Button {
	case tea.MouseButtonWheelUp:
		steps = -1
	case tea.MouseButtonWheelDown:
		steps = 1
	case tea.MouseButtonLeft:
	default:
		return nil
	}
	switch {
	case a.details.open:
		a.details.scroll(steps * wheelLines)
		return nil
	case a.showHelp:
		a.helpOff = max(a.helpOff+steps*wheelLines, 0)
		return nil
	}
	hit, ok := a.paneAt(m.X, m.Y)
	if !ok {
		return nil
	}
	if steps != 0 {
		if w, ok := a.panes[hit.id].(wheeler); ok {
			return w.wheel(steps)
		}
		return nil
	}
	if a.textInputOpen() {
		return nil // the search line keeps the keyboard until enter or esc
	}
	wasFocused := a.focus == hit.id
	if !wasFocused {
		a.setFocus(hit.id)
	}
	c, ok := a.panes[hit.id].(rowClicker)
	if !ok || !hit.inside {
		return nil
	}
	cmd, same := c.clickRow(hit.y)
	if same && wasFocused {
		return tea.Batch(cmd, a.pressSelect())
	}
	return cmd
}

// pressSelect acts as the select key (enter) does in the focused pane.
func (a *App) pressSelect() tea.Cmd {
	keys := a.c.keys.List.Select.Keys()
	if len(keys) == 0 || !a.c.keys.List.Select.Enabled() {
		return nil
	}
	return a.handleKey(keymap.MustMsg(keys[0]))
}

func (f *fleetPane) clickRow(y int) (tea.Cmd, bool) {
	top := 0
	if f.searching || f.query != "" {
		top++ // the search line
	}
	if y < top || y-top >= f.bodyHeight() {
		return nil, false
	}
	i := f.offset + y - top
	if !f.selectable(i) {
		return nil, false
	}
	if i == f.cursor {
		return nil, true
	}
	return f.moveTo(i), false
}

func (f *fleetPane) wheel(steps int) tea.Cmd { return f.move(steps) }

func (p *listPane[T]) clickRow(y int) (tea.Cmd, bool) {
	top := 0
	if p.err != "" {
		top++ // the error line
	}
	i := p.offset + y - top
	if y < top || y >= p.bodyHeight() || i >= len(p.items) {
		return nil, false
	}
	if i == p.cursor {
		return nil, true
	}
	p.cursor = i
	p.mark()
	return nil, false
}

func (p *listPane[T]) wheel(steps int) tea.Cmd {
	if len(p.items) > 0 {
		p.cursor = max(0, min(p.cursor+steps, len(p.items)-1))
		p.mark()
	}
	return nil
}

func (l *lineagePane) clickRow(y int) (tea.Cmd, bool) {
	i := l.offset + y
	if !l.has || l.ref.node() || y >= l.bodyHeight() || i >= len(l.vis) {
		return nil, false
	}
	if i == l.cursor {
		return nil, true
	}
	l.moveTo(i)
	return nil, false
}

func (l *lineagePane) wheel(steps int) tea.Cmd {
	l.moveTo(l.cursor + steps)
	return nil
}

// wheel scrolls the transcript by lines; up past its top loads older messages, as the keys do.
func (t *transcriptPane) wheel(steps int) tea.Cmd {
	if !t.has {
		return nil
	}
	if steps < 0 {
		t.follow = false
		if t.offset == 0 {
			return t.loadOlder()
		}
	}
	t.offset += steps * wheelLines
	t.clamp()
	return nil
}
