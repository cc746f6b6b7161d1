package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Size limits: below the minimum the app shows only what is wrong; under wideWidth it
// shows the fleet and one other pane.
const (
	minWidth  = 80
	minHeight = 24
	wideWidth = 120
)

type rect struct{ x, y, w, h int }

func ansiWidth(s string) int { return ansi.StringWidth(s) }

// layout places the panes (outer boxes) and tells each its inner size. The status bar and
// the key line take the last two rows.
func (a *App) layout() {
	a.tooSmall = a.w < minWidth || a.h < minHeight
	if a.tooSmall {
		return
	}
	a.compact = a.w < wideWidth
	bodyH := a.h - 2
	a.shown = [paneCount]bool{}
	set := func(id paneID, r rect) {
		a.rects[id], a.shown[id] = r, true
		a.panes[id].SetSize(r.w-2, r.h-2)
	}
	if a.zoomed {
		a.layoutZoomed(bodyH, set)
		return
	}
	if a.compact {
		lw := a.w * 2 / 5
		set(paneFleet, rect{0, 0, lw, bodyH})
		for id := paneTranscript; id < paneCount; id++ {
			// Hidden panes keep the size they will show at.
			a.panes[id].SetSize(a.w-lw-2, bodyH-2)
		}
		set(a.detail, rect{lw, 0, a.w - lw, bodyH})
		return
	}
	lw := a.w * 9 / 20
	rw := a.w - lw
	th := bodyH * 3 / 5
	bh := bodyH - th
	lnw := rw / 2
	wh := bh / 2
	// The tasks sit under the fleet, a third of its column.
	kh := max(bodyH/3, 5)
	set(paneFleet, rect{0, 0, lw, bodyH - kh})
	set(paneTasks, rect{0, bodyH - kh, lw, kh})
	set(paneTranscript, rect{lw, 0, rw, th})
	set(paneLineage, rect{lw, th, lnw, bh})
	set(paneWatches, rect{lw + lnw, th, rw - lnw, wh})
	set(paneUndeliverable, rect{lw + lnw, th + wh, rw - lnw, bh - wh})
}

// compose draws the shown panes into bodyH lines of exactly a.w cells.
func (a *App) compose(bodyH int) []string {
	type placed struct {
		r     rect
		lines []string
	}
	var ps []placed
	for id := paneFleet; id < paneCount; id++ {
		if a.shown[id] {
			ps = append(ps, placed{a.rects[id], a.box(id)})
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].r.x < ps[j].r.x })
	out := make([]string, bodyH)
	for y := range bodyH {
		var b strings.Builder
		for _, p := range ps {
			if y >= p.r.y && y < p.r.y+p.r.h {
				b.WriteString(p.lines[y-p.r.y])
			}
		}
		out[y] = pad(b.String(), a.w)
	}
	return out
}

// box frames pane id. The focused pane's frame is heavy and its title carries a marker, so
// focus shows without colour too.
func (a *App) box(id paneID) []string {
	r, p, st := a.rects[id], a.panes[id], a.c.st
	border, ts := st.Border, st.Title
	tl, tr, bl, br, hz, vt := "╭", "╮", "╰", "╯", "─", "│"
	title := itoa(int(id)+1) + " " + p.Title()
	if a.focus == id {
		border, ts = st.BorderFocused, st.TitleFocused
		tl, tr, bl, br, hz, vt = "┏", "┓", "┗", "┛", "━", "┃"
		title = st.G.Focus + title
	}
	inner := r.w - 2
	top := border.Render(tl+hz+" ") + ts.Render(truncate(title, max(r.w-6, 1))) + " "
	top += border.Render(strings.Repeat(hz, max(r.w-1-ansiWidth(top), 0)) + tr)
	lines := strings.Split(p.View(), "\n")
	out := make([]string, 0, r.h)
	out = append(out, top)
	for i := range r.h - 2 {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out = append(out, border.Render(vt)+pad(l, inner)+border.Render(vt))
	}
	out = append(out, border.Render(bl+strings.Repeat(hz, max(inner, 0))+br))
	return out
}

// overlay draws a dialog over the middle of body.
func (a *App) overlay(body, dlg []string) []string {
	if len(dlg) == 0 {
		return body
	}
	dw := ansiWidth(dlg[0])
	x0 := max((a.w-dw)/2, 0)
	y0 := max((len(body)-len(dlg))/2, 0)
	reset := ""
	if !a.c.st.NoColor {
		// A cut through a styled run would leave its colour on for the dialog.
		reset = "\x1b[0m"
	}
	out := append([]string(nil), body...)
	for i, l := range dlg {
		y := y0 + i
		if y >= len(out) {
			break
		}
		base := out[y]
		out[y] = ansi.Truncate(base, x0, "") + reset + pad(l, dw) + reset + ansi.TruncateLeft(base, x0+dw, "")
	}
	return out
}
