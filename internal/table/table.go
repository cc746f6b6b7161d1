// Package table renders the operator CLI's tables: relative times, colour only on a terminal,
// columns fitted to a width (the widest text column is cut with …), sorting by a named column,
// and counts with correct plurals.
package table

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/model"
)

// Style is the meaning of a cell, which a terminal shows as a colour.
type Style int

// Styles of cells.
const (
	Plain Style = iota
	Good        // healthy, idle, passed
	Busy        // running, active
	Warn        // waiting, degraded, high risk
	Bad         // error, failed
	Muted       // absent values, secondary text
)

// Built on first use: a package-level map or regexp is built by every process at start.
var sgr = sync.OnceValue(func() map[Style]string {
	return map[Style]string{Good: "32", Busy: "36", Warn: "33", Bad: "31", Muted: "2"}
})

// Column is one column of a table.
type Column struct {
	Name string // header, and the name --sort takes (case-insensitive)
	// Fit marks a text column that may be cut when the table is too wide; the widest one is
	// cut first. Ids, statuses and times are never cut.
	Fit bool
	// Drop, when above 0, lets the column be left out when the table does not fit even with
	// its cut columns at their narrowest: the lowest Drop goes first. A line wrapped by the
	// terminal is harder to read than one column less.
	Drop int
}

// Cell is one value: its text, or a time shown relative to Options.Now.
type Cell struct {
	Text  string
	Time  time.Time // when set (and Text empty), the cell shows how long ago it was
	Num   *int64    // when set, the cell sorts as a number
	Style Style
}

// Text is a plain cell.
func Text(s string) Cell { return Cell{Text: s} }

// Styled is a cell of the given style.
func Styled(s string, st Style) Cell { return Cell{Text: s, Style: st} }

// At is a cell showing t as a relative time; a zero t shows "-".
func At(t time.Time) Cell { return Cell{Time: t} }

// Int is a number cell.
func Int(n int64) Cell { return Cell{Text: fmt.Sprint(n), Num: &n} }

// Table is a header and rows, each as long as the header.
type Table struct {
	Columns []Column
	Rows    [][]Cell
	Empty   string // shown instead of a bare header when there are no rows ("no tasks")
}

// Options are how a table is shown.
type Options struct {
	Width  int // at most this many columns; 0 leaves the table as wide as it is
	Color  bool
	Now    time.Time
	Indent string // put before every line (tables under a heading)
}

// columnGap is the space between two columns.
const columnGap = 2

// Sort orders the rows by the column named name (case-insensitive): times newest first,
// numbers and text ascending; equal rows keep their order. An empty name leaves the order as
// it is. An unknown name is refused with the names there are.
func (t *Table) Sort(name string) error {
	if name == "" {
		return nil
	}
	col := t.column(name)
	if col < 0 {
		return model.Errorf(model.CodeInvalidArgument, "sort by one of: "+strings.Join(t.names(), ", "), "unknown column %q for --sort", name)
	}
	sort.SliceStable(t.Rows, func(i, j int) bool { return less(t.Rows[i][col], t.Rows[j][col]) })
	return nil
}

// SortNames are the column names Sort takes, as --sort's help lists them.
func SortNames(cols []Column) string {
	t := Table{Columns: cols}
	return strings.Join(t.names(), ", ")
}

func (t *Table) names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = strings.ToLower(c.Name)
	}
	return out
}

func (t *Table) column(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

func less(a, b Cell) bool {
	switch {
	case !a.Time.IsZero() || !b.Time.IsZero():
		return a.Time.After(b.Time) // newest first; unknown times last
	case a.Num != nil && b.Num != nil:
		return *a.Num < *b.Num
	}
	return strings.ToLower(a.Text) < strings.ToLower(b.Text)
}

// Render writes the table: a header, then one line per row.
func (t *Table) Render(w io.Writer, o Options) error {
	if len(t.Rows) == 0 && t.Empty != "" {
		_, err := io.WriteString(w, o.Indent+paint(t.Empty, Muted, o.Color, false)+"\n")
		return err
	}
	t, text, widths := t.narrowest(o)
	var b strings.Builder
	for r, line := range text {
		b.WriteString(o.Indent)
		for i, s := range line {
			s = ansi.Truncate(s, widths[i], "…")
			pad := widths[i] - ansi.StringWidth(s)
			last := i == len(line)-1
			st := Plain
			if r == 0 {
				st = Muted
			} else if i < len(t.Rows[r-1]) {
				st = t.Rows[r-1][i].Style
			}
			if s == "-" && r > 0 {
				st = Muted
			}
			b.WriteString(paint(s, st, o.Color, r == 0))
			if !last {
				b.WriteString(strings.Repeat(" ", pad+columnGap))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// narrowest is the table as it is shown: its cells as text and its column widths, with
// droppable columns left out, lowest Drop first, while it is still wider than o.Width.
func (t *Table) narrowest(o Options) (*Table, [][]string, []int) {
	width := o.Width - ansi.StringWidth(o.Indent)
	for {
		text := t.text(o.Now)
		widths := t.fit(text, width)
		drop := -1
		for i, c := range t.Columns {
			if c.Drop > 0 && (drop < 0 || c.Drop < t.Columns[drop].Drop) {
				drop = i
			}
		}
		if width <= 0 || lineWidth(widths) <= width || drop < 0 {
			return t, text, widths
		}
		t = t.without(drop)
	}
}

// text is the header and every cell as the text shown.
func (t *Table) text(now time.Time) [][]string {
	text := make([][]string, 0, len(t.Rows)+1)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = strings.ToUpper(c.Name)
	}
	text = append(text, head)
	for _, row := range t.Rows {
		line := make([]string, len(t.Columns))
		for i := range t.Columns {
			if i < len(row) {
				line[i] = cellText(row[i], now)
			}
		}
		text = append(text, line)
	}
	return text
}

// without is a copy of t without column i.
func (t *Table) without(i int) *Table {
	c := &Table{Columns: append(append([]Column{}, t.Columns[:i]...), t.Columns[i+1:]...), Empty: t.Empty}
	for _, row := range t.Rows {
		r := append([]Cell{}, row...)
		if i < len(r) {
			r = append(r[:i], r[i+1:]...)
		}
		c.Rows = append(c.Rows, r)
	}
	return c
}

func lineWidth(widths []int) int {
	n := columnGap * (len(widths) - 1)
	for _, w := range widths {
		n += w
	}
	return n
}

// fit is each column's width: its widest cell, then, while the line is wider than width, the
// widest Fit column cut down, never below its header or a few characters.
func (t *Table) fit(text [][]string, width int) []int {
	widths := make([]int, len(t.Columns))
	for _, line := range text {
		for i, s := range line {
			widths[i] = max(widths[i], ansi.StringWidth(s))
		}
	}
	if width <= 0 {
		return widths
	}
	total := func() int { return lineWidth(widths) }
	for over := total() - width; over > 0; over = total() - width {
		widest := -1
		for i, c := range t.Columns {
			floor := max(ansi.StringWidth(c.Name), minFit)
			if c.Fit && widths[i] > floor && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break // nothing left to cut: the line stays wider than the terminal
		}
		floor := max(ansi.StringWidth(t.Columns[widest].Name), minFit)
		// Cut the widest column down to the next widest, or by what is over, whichever is less.
		next := floor
		for i, c := range t.Columns {
			if i != widest && c.Fit && widths[i] <= widths[widest] {
				next = max(next, widths[i])
			}
		}
		widths[widest] = max(floor, widths[widest]-min(over, max(1, widths[widest]-next)))
	}
	return widths
}

// minFit is the narrowest a cut column gets: an ellipsis after a few characters still says
// what the value starts with.
const minFit = 8

func cellText(c Cell, now time.Time) string {
	if c.Text == "" && !c.Time.IsZero() {
		return Ago(c.Time, now)
	}
	if c.Text == "" {
		return "-"
	}
	return oneLine(c.Text)
}

// oneLine is s as one line of plain text: a newline or tab would break the columns, and an
// escape sequence in a title or path (they come from other programs) must not reach the
// terminal.
func oneLine(s string) string {
	s = ansi.Strip(s)
	return termsafe.String(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)) // bidi controls and invalid UTF-8 are left
}

func paint(s string, st Style, color, header bool) string {
	if !color || s == "" {
		return s
	}
	if header {
		return "\x1b[1m" + s + "\x1b[0m"
	}
	if code, ok := sgr()[st]; ok {
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	return s
}
