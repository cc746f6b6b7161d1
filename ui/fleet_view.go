package ui

// Laying out and drawing the fleet: lines from groups, the cursor's scrolling, rows.

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func (f *fleetPane) filter() string {
	if f.searching {
		return strings.TrimSpace(f.search.Value())
	}
	return f.query
}

// relayout rebuilds the line model and puts the cursor back on what it was on.
func (f *fleetPane) relayout() {
	fq := parseFleetQuery(f.filter())
	q := strings.ToLower(fq.title)
	f.lines = f.lines[:0]
	f.shownRows, f.active, f.titleRows = 0, 0, 0
	f.cwdMax, f.branchMax, f.usageMax = 0, 0, 0
	f.shareUsage()
	hosted := f.hostedAmong(f.group(threadsGroup).rows)
	for gi, g := range f.groups {
		if g.id == threadsGroup && !g.loaded && !g.loading && len(g.rows) == 0 && g.errLine == "" {
			continue
		}
		f.lines = append(f.lines, fleetLine{kind: lineHeader, g: gi})
		if g.errLine != "" {
			f.lines = append(f.lines, fleetLine{kind: lineError, g: gi})
		}
		shown := 0
		for ri, r := range g.rows {
			f.c.ids.add(r.ref.ID)
			if r.ref.Status == model.ThreadActive {
				f.active++
			}
			if g.id == threadsGroup && hosted[r.ref.ID] {
				continue // its host lists it now
			}
			if q != "" && !strings.Contains(strings.ToLower(r.ref.Title), q) && !strings.HasPrefix(r.ref.ID, q) {
				continue
			}
			f.titleRows++
			if fq.bad != "" || !statusMatches(r.ref, fq.status) {
				continue
			}
			f.lines = append(f.lines, fleetLine{kind: lineRow, g: gi, r: ri})
			f.cwdMax = max(f.cwdMax, ansi.StringWidth(r.ref.Cwd))
			f.branchMax = max(f.branchMax, ansi.StringWidth(r.branch))
			f.usageMax = max(f.usageMax, ansi.StringWidth(usageCell(r.ref)))
			shown++
		}
		g.shown = shown
		f.shownRows += shown
		switch {
		case g.next != "" || (g.loading && g.loaded):
			f.lines = append(f.lines, fleetLine{kind: lineMore, g: gi})
		case shown == 0 && g.errLine == "":
			f.lines = append(f.lines, fleetLine{kind: lineEmpty, g: gi})
		}
	}
	f.cursor = -1
	for i, l := range f.lines {
		if (l.kind == lineRow || l.kind == lineMore) && f.lineKey(l) == f.curKey {
			f.cursor = i
			break
		}
	}
	if f.cursor < 0 {
		f.cursor = f.nearestSelectable(0, 1)
	}
	f.scroll()
}

func (f *fleetPane) lineKey(l fleetLine) string {
	g := f.groups[l.g]
	if l.kind == lineMore {
		return g.id + "/#more"
	}
	if l.kind == lineRow {
		return g.id + "/" + g.rows[l.r].ref.ID
	}
	return ""
}

func (f *fleetPane) selectable(i int) bool {
	return i >= 0 && i < len(f.lines) && (f.lines[i].kind == lineRow || f.lines[i].kind == lineMore)
}

func (f *fleetPane) nearestSelectable(from, dir int) int {
	for i := from; i >= 0 && i < len(f.lines); i += dir {
		if f.selectable(i) {
			return i
		}
	}
	for i := from; i >= 0 && i < len(f.lines); i -= dir {
		if f.selectable(i) {
			return i
		}
	}
	return -1
}

func (f *fleetPane) bodyHeight() int {
	h := f.h
	if f.searching || f.query != "" {
		h--
	}
	return max(h, 1)
}

func (f *fleetPane) scroll() {
	bh := f.bodyHeight()
	if f.cursor >= 0 {
		// Keep the group header in view when the cursor is on the group's first row.
		top := f.cursor
		for top > 0 && !f.selectable(top-1) && f.cursor-top < 2 {
			top--
		}
		if top < f.offset {
			f.offset = top
		}
		if f.cursor >= f.offset+bh {
			f.offset = f.cursor - bh + 1
		}
	}
	f.offset = max(0, min(f.offset, len(f.lines)-bh))
}

func (f *fleetPane) View() string {
	st := f.c.st
	var out []string
	if f.searching {
		f.search.Width = max(f.w-4, 1)
		out = append(out, f.search.View())
	} else if f.query != "" {
		out = append(out, st.Accent.Render("search: "+oneLine(f.query))+st.Muted.Render("  (esc clears)"))
	}
	if f.err != "" && len(f.lines) == 0 {
		out = append(out, st.Danger.Render(st.G.Danger+f.err))
	}
	bh := f.bodyHeight()
	for i := f.offset; i < len(f.lines) && i < f.offset+bh; i++ {
		out = append(out, f.renderLine(i))
	}
	return fit(strings.Join(out, "\n"), f.w, f.h)
}

func (f *fleetPane) renderLine(i int) string {
	st, l := f.c.st, f.lines[i]
	g := f.groups[l.g]
	w := f.w
	switch l.kind {
	case lineHeader:
		name := g.id
		if g.id == threadsGroup {
			name = "codexhost threads"
		}
		health := f.healthBadge(g)
		count := st.Muted.Render(fmt.Sprintf(" · %d", g.shown))
		return truncate(st.HelpSection.Render(name)+"  "+health+count, w)
	case lineError:
		return truncate("  "+st.Danger.Render(st.G.Danger+g.errLine), w)
	case lineEmpty:
		what := "no sessions"
		if g.loading {
			what = "loading…"
		} else if fq := parseFleetQuery(f.filter()); fq.status != "" {
			what = "no session with status " + fq.status
		} else if f.filter() != "" {
			what = "no titles match"
		}
		return "  " + st.Muted.Render(what)
	case lineMore:
		text := st.G.More + "more"
		if g.loading {
			text = "loading more…"
		}
		return f.cursorPrefix(i) + st.Muted.Render(text)
	}
	r := g.rows[l.r]
	return f.renderRow(i, r, w)
}

func (f *fleetPane) healthBadge(g *fleetGroup) string {
	st := f.c.st
	switch {
	case g.errLine != "" || g.health == api.CatalogHealthError:
		return st.Danger.Render("✗ error")
	case g.loading && !g.loaded:
		return st.Muted.Render("… loading")
	case g.loaded || g.health == api.CatalogHealthOK:
		return st.OK.Render("✓ ok")
	}
	return st.Muted.Render("? unknown")
}

func (f *fleetPane) cursorPrefix(i int) string {
	if i == f.cursor {
		return f.c.st.G.Cursor
	}
	return f.c.st.G.NoCursor
}

func (f *fleetPane) renderRow(i int, r fleetRow, w int) string {
	st := f.c.st
	ageW := 4
	short := w < 40
	// At rest, but what people need to see is that its last turn failed.
	badge := f.c.refBadge(r.ref.Status, r.ref.Waiting, r.ref.Failed, short)
	bw := badgeWidth
	if short {
		bw = 1
	}
	if r.ref.Status == model.ThreadActive && !r.ref.Waiting {
		// A running turn turns, here as in the transcript and the status bar.
		word := " running"
		if short {
			word = ""
		}
		badge = st.BadgeActive.Render(pad(f.c.spinner()+word, bw))
	}
	// The branch and cwd columns are as wide as the widest shown, up to a cap: fixed widths
	// left blank columns beside titles cut short.
	var branchW, cwdW int
	if w >= 60 {
		branchW = min(12, f.branchMax)
	}
	if w >= 78 {
		cwdW = min(18, f.cwdMax)
	}
	usageW := 0
	if w >= 50 {
		// As wide as the widest shown; a live update that widens it waits for the next layout.
		usageW = min(fleetUsageWidth, max(f.usageMax, ansi.StringWidth(usageCell(r.ref))))
	}
	titleW := w - 2 - bw - 1 - ageW - 1
	if usageW > 0 {
		titleW -= usageW + 1
	}
	if branchW > 0 {
		titleW -= branchW + 1
	}
	if cwdW > 0 {
		titleW -= cwdW + 1
	}
	title := r.ref.Title
	if title == "" {
		title = f.c.short(r.ref.ID)
	}
	if r.ref.Harness != "" && r.ref.Harness != model.NativeHarness {
		title += " (" + r.ref.Harness + ")" // which agent runs it: the title alone does not say
	}
	if r.ref.Linked {
		title = linkMark + title
	}
	line := pad(title, max(titleW, 1))
	if cwdW > 0 {
		line += " " + st.Muted.Render(pad(tail(r.ref.Cwd, cwdW), cwdW))
	}
	if branchW > 0 {
		line += " " + st.Accent.Render(pad(r.branch, branchW))
	}
	if usageW > 0 {
		line += " " + st.Muted.Render(padLeft(usageCell(r.ref), usageW))
	}
	line += " " + st.Muted.Render(padLeft(age(f.c.now(), r.updated), ageW))
	prefix := f.cursorPrefix(i)
	if i == f.cursor {
		sel := st.SelectedInactive
		if f.focused {
			sel = st.Selected
		}
		return prefix + badge + " " + sel.Render(ansi.Strip(line))
	}
	return prefix + badge + " " + line
}

// tail keeps the end of a path, which tells directories apart better than its start.
func tail(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	return ansi.TruncateLeft(s, sw-w+1, "…")
}

// fleetUsageWidth fits "999.9k 100%": the tokens, and the context fill of a running turn.
const fleetUsageWidth = 11

// usageCell is a codexhost thread's tokens ("—" while unknown) and, while a turn runs, how
// full its context window is; blank for sessions no codexhost thread drives, which report
// none here.
func usageCell(r threadRef) string {
	if !r.Metered {
		return ""
	}
	text := model.ShortUsage(r.Usage)
	if r.Status == model.ThreadActive && r.Usage != nil && r.Usage.ContextFill != nil {
		text += fmt.Sprintf(" %.0f%%", *r.Usage.ContextFill*100)
	}
	return text
}
