package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// The detail view (i): a scrollable dialog with the whole text of what panes and the status
// bar cut to fit, the last error and message, the selection's title, reasons and raw states.

// detailField is one labelled piece of text; its value is shown whole, wrapped.
type detailField struct{ label, value string }

// detailSection is a heading and its fields.
type detailSection struct {
	title  string
	fields []detailField
}

type detailDialog struct {
	c     *common
	open  bool
	title string
	lines []string // drawn at the width last shown; rebuilt when it changes
	secs  []detailSection
	width int
	off   int
	rows  int // body rows last drawn, for paging and clamping
}

func (d *detailDialog) Show(title string, secs []detailSection) {
	d.open, d.title, d.secs, d.off, d.width = true, title, secs, 0, 0
}

func (d *detailDialog) scroll(n int) {
	d.off = max(0, min(d.off+n, len(d.lines)-d.rows))
}

// HandleKey scrolls with the list keys; any other key closes, as the help does.
func (d *detailDialog) HandleKey(k tea.KeyMsg) {
	km := d.c.keys.List
	page := max(d.rows-1, 1)
	switch {
	case key.Matches(k, km.Up):
		d.scroll(-1)
	case key.Matches(k, km.Down):
		d.scroll(1)
	case key.Matches(k, km.PageUp):
		d.scroll(-page)
	case key.Matches(k, km.PageDown):
		d.scroll(page)
	case key.Matches(k, km.Top):
		d.off = 0
	case key.Matches(k, km.Bottom):
		d.scroll(len(d.lines))
	default:
		d.open = false
	}
}

func (d *detailDialog) ShortHelp() []key.Binding {
	km := d.c.keys
	closeKey := km.Global.Info
	closeKey.SetHelp("any key", "close")
	return []key.Binding{navHelp(km.List.Up, km.List.Down, "scroll"), km.List.PageDown, closeKey}
}

func (d *detailDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// View draws the dialog at most w cells wide and h lines tall.
func (d *detailDialog) View(w, h int) []string {
	st := d.c.st
	bw := min(w, 100)
	inner := bw - 4
	if d.width != inner {
		d.width, d.lines = inner, nil
		for i, s := range d.secs {
			if i > 0 {
				d.lines = append(d.lines, "")
			}
			d.lines = append(d.lines, st.HelpSection.Render(s.title))
			for _, f := range s.fields {
				d.lines = append(d.lines, detailLines(st.Muted.Render(f.label+": "), clean(f.value), inner)...)
			}
		}
	}
	d.rows = max(min(len(d.lines), h-3), 1)
	d.scroll(0)
	body := append([]string(nil), d.lines[d.off:min(d.off+d.rows, len(d.lines))]...)
	where := ""
	if len(d.lines) > d.rows {
		where = st.Muted.Render(" · " + itoa(d.off+1) + "–" + itoa(d.off+len(body)) + " of " + itoa(len(d.lines)))
	}
	body = append(body, st.Muted.Render(navHelp(d.c.keys.List.Up, d.c.keys.List.Down).Help().Key+" scroll · any other key closes")+where)
	return dialogBox(d.title, body, bw, st.DialogBorder, st.TitleFocused)
}

// detailLines wraps a label and its whole value: the value's own lines stay, each wrapped,
// continued under the label's indent.
func detailLines(label, value string, w int) []string {
	lw := ansiWidth(label)
	if lw > w/2 {
		lw = 2
	}
	var out []string
	for _, wl := range wrap(value, max(w-lw, 1)) {
		if len(out) == 0 {
			out = append(out, label+wl)
			continue
		}
		out = append(out, strings.Repeat(" ", lw)+wl)
	}
	if len(out) == 0 {
		out = append(out, label)
	}
	return out
}

// infoKey opens the detail view of what is in focus and of the status bar.
func (a *App) infoKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if !key.Matches(k, a.c.keys.Global.Info) {
		return nil, false
	}
	secs := a.statusDetails()
	if d, ok := a.panes[a.focus].(detailer); ok {
		secs = append(d.details(), secs...)
	}
	if len(secs) == 0 {
		return status(levelInfo, "nothing to show in full here: select a row first"), true
	}
	a.details.Show("Details", secs)
	return nil, true
}
