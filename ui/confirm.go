package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// confirmDialog asks a yes/no question. No is the default: only the confirm key says yes,
// and Enter, Esc and every other key say no. It never does the action itself; it hands it
// back to the root.
type confirmDialog struct {
	c        *common
	open     bool
	title    string
	lines    []string
	danger   bool
	yes      string // what confirming does, for the key line
	act      action
	openedAt time.Time
	grace    time.Duration
}

type confirmResult struct {
	ok  bool
	act action
}

// Show opens the dialog. A dialog opened by an async result (not by a key) ignores keys for
// its first moments, so keys typed ahead for something else cannot answer it.
func (d *confirmDialog) Show(title string, lines []string, yes string, act action, danger, async bool) {
	d.open, d.title, d.lines, d.yes, d.act, d.danger = true, title, lines, yes, act, danger
	d.openedAt = d.c.now()
	d.grace = 0
	if async {
		d.grace = d.c.grace
	}
}

// HandleKey answers the dialog; done is false while the key was ignored.
func (d *confirmDialog) HandleKey(k tea.KeyMsg) (done bool, res confirmResult) {
	if d.grace > 0 && d.c.now().Sub(d.openedAt) < d.grace {
		return false, confirmResult{}
	}
	d.open = false
	return true, confirmResult{ok: key.Matches(k, d.c.keys.Dialog.Confirm), act: d.act}
}

func (d *confirmDialog) ShortHelp() []key.Binding {
	y := d.c.keys.Dialog.Confirm
	y.SetHelp(y.Help().Key, d.yes)
	return []key.Binding{y, d.c.keys.Dialog.Cancel}
}

func (d *confirmDialog) FullHelp() [][]key.Binding { return [][]key.Binding{d.ShortHelp()} }

// View draws the dialog box at most w cells wide.
func (d *confirmDialog) View(w int) []string {
	st := d.c.st
	bw := min(w, 76)
	inner := bw - 4
	var body []string
	for _, l := range d.lines {
		for _, wl := range wrap(l, inner) {
			body = append(body, wl)
		}
	}
	yes := d.c.keys.Dialog.Confirm.Help().Key
	body = append(body, "", st.Accent.Render(yes+" "+d.yes)+st.Muted.Render(" · any other key backs out  ("+yes+"/N)"))
	title := d.title
	border := st.DialogBorder
	if d.danger {
		title = st.G.Danger + title
		border = st.DialogDanger
	}
	return dialogBox(title, body, bw, border, st.TitleFocused)
}

// dialogBox frames lines in a heavy box of width w.
func dialogBox(title string, body []string, w int, border, titleStyle interface{ Render(...string) string }) []string {
	inner := w - 4
	top := border.Render("┏━ ") + titleStyle.Render(truncate(title, max(inner-2, 1))) + " "
	fill := w - 1 - ansiWidth(top)
	top += border.Render(strings.Repeat("━", max(fill, 0)) + "┓")
	out := []string{top}
	for _, l := range body {
		out = append(out, border.Render("┃")+" "+pad(l, inner)+" "+border.Render("┃"))
	}
	out = append(out, border.Render("┗"+strings.Repeat("━", w-2)+"┛"))
	return out
}
