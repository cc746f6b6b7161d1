package ui

// Paging the fleet without losing the person's place: a re-read keeps the pages already
// loaded, moves that arrive while the next page loads are applied once it is there, and
// "bottom" loads page after page to the real end.

import (
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/runtime/api"
)

// firstPage puts a host's first page in front of its rows. Rows of later pages already
// loaded stay after it, with their cursor, when the page answers the same search: a re-read
// must not take the person back to page 1. A new search starts over.
func (f *fleetPane) firstPage(g *fleetGroup, hs api.CatalogHostSessions) {
	q := f.searchText()
	keep := g.loaded && g.pages > 1 && g.query == q
	g.loaded, g.loading, g.query = true, false, q
	g.errLine = ""
	if hs.Error != nil {
		g.errLine = oneLine(string(hs.Error.Code) + ": " + hs.Error.Message)
	}
	fresh := appendSessions(nil, hs.Host, hs.Sessions)
	g.total = hs.Total
	if !keep {
		g.rows, g.pages, g.next = fresh, 1, hs.NextCursor
		return
	}
	seen := make(map[string]bool, len(fresh))
	for _, r := range fresh {
		seen[r.ref.ID] = true
	}
	for _, r := range g.rows {
		if !seen[r.ref.ID] {
			fresh = append(fresh, r)
		}
	}
	g.rows = fresh
}

// queueMove keeps a move that arrived while the page under the cursor loads; it reports
// whether it did.
func (f *fleetPane) queueMove(delta int) bool {
	if g, ok := f.moreUnderCursor(); ok && g.loading {
		f.pending += delta
		return true
	}
	return false
}

// moreUnderCursor is the group whose "more" line the cursor is on.
func (f *fleetPane) moreUnderCursor() (*fleetGroup, bool) {
	if f.cursor < 0 || f.cursor >= len(f.lines) || f.lines[f.cursor].kind != lineMore {
		return nil, false
	}
	return f.groups[f.lines[f.cursor].g], true
}

// applyPending carries on once a page arrived: the queued moves, or the walk to the end.
// A page a re-read dropped on its way is asked for again.
func (f *fleetPane) applyPending() tea.Cmd {
	if g, ok := f.moreUnderCursor(); ok {
		if g.loading {
			return nil
		}
		// The cursor resting here asked for the page: a re-read dropped it on its way.
		return f.nextPage(g)
	}
	if f.toEnd {
		cmd := f.moveTo(f.nearestSelectable(len(f.lines)-1, -1))
		if _, more := f.moreUnderCursor(); !more {
			f.toEnd = false // the last row: the end
		}
		return cmd
	}
	d := f.pending
	f.pending = 0
	if d == 0 {
		return nil
	}
	return f.move(d)
}

// stopPaging forgets queued moves and the walk to the end, when a page failed or the person
// pressed another key.
func (f *fleetPane) stopPaging() { f.pending, f.toEnd = 0, false }

// countText is the header's count: the rows shown, with "+" while a group has pages not yet
// loaded, so 50 of 3,001 reads "50+" and not as if it were all.
func (f *fleetPane) countText() string {
	t := thousands(f.shownRows)
	known, more, unknown := 0, false, false
	for _, g := range f.groups {
		switch {
		case g.next == "":
			known += len(g.rows)
		case g.total > len(g.rows):
			known, more = known+g.total, true
		default:
			known, more, unknown = known+len(g.rows), true, true
		}
	}
	switch {
	case !more:
	case f.filter() != "" || known <= f.shownRows:
		// A filter counts the rows it lets through; the totals are of every row.
		t += "+"
	case unknown:
		t += " of " + thousands(known) + "+"
	default:
		t += " of " + thousands(known)
	}
	if f.toEnd {
		t += " · loading to the end"
	}
	return t
}

// thousands writes n with a comma between each three digits: 3,001.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
