package mdterm

import (
	"strings"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

func isTable(n gast.Node) bool { _, ok := n.(*east.Table); return ok }

// tableCell is a cell's styled words and the width they take on one line.
type tableCell struct {
	words []word
	width int
}

// table draws a GFM table fitted to width: columns keep their natural width while they fit,
// the widest share what is left and wrap inside it. A table too narrow for its columns is
// drawn as one "header: value" line per cell instead.
func (r *renderer) table(n gast.Node, width int) []line {
	t := n.(*east.Table)
	var rows [][]tableCell
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []tableCell
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			st := r.lk.text
			if _, head := row.(*east.TableHeader); head && !r.lk.plain {
				st.bold = true
			}
			ws := words(r.inlineFrags(c, st, true))
			cells = append(cells, tableCell{words: ws, width: naturalWidth(ws)})
		}
		rows = append(rows, cells)
	}
	cols := len(t.Alignments)
	if cols == 0 || len(rows) == 0 {
		return nil
	}
	overhead := 3*cols - 1 // " a │ b " less the outer spaces: a space each side, one bar between
	if width-overhead < 3*cols {
		return r.stackedTable(rows, width)
	}
	widths := fitColumns(rows, cols, width-overhead)
	var out []line
	for i, cells := range rows {
		out = append(out, r.tableRow(cells, widths, t.Alignments)...)
		if i == 0 {
			out = append(out, r.tableRule(widths))
		}
	}
	return out
}

func naturalWidth(ws []word) int {
	w := 0
	for i, x := range ws {
		if i > 0 && !x.brk {
			w++
		}
		w += x.width
	}
	return w
}

// fitColumns shares budget cells between columns: each narrow column gets what it needs,
// the others an equal share of the rest.
func fitColumns(rows [][]tableCell, cols, budget int) []int {
	natural := make([]int, cols)
	for _, cells := range rows {
		for i, c := range cells {
			if i < cols {
				natural[i] = max(natural[i], c.width, 1)
			}
		}
	}
	widths := make([]int, cols)
	fixed := make([]bool, cols)
	left, open := budget, cols
	for changed := true; changed && open > 0; {
		changed = false
		share := left / open
		for i := range natural {
			if !fixed[i] && natural[i] <= share {
				widths[i], fixed[i] = natural[i], true
				left -= natural[i]
				open--
				changed = true
			}
		}
	}
	if open > 0 {
		share, extra := left/open, left%open
		for i := range widths {
			if !fixed[i] {
				widths[i] = share
				if extra > 0 {
					widths[i]++
					extra--
				}
			}
		}
	}
	return widths
}

func (r *renderer) tableRow(cells []tableCell, widths []int, aligns []east.Alignment) []line {
	wrapped := make([][]line, len(widths))
	height := 1
	for i := range widths {
		if i < len(cells) {
			wrapped[i] = wrap(cells[i].words, widths[i])
		}
		height = max(height, len(wrapped[i]))
	}
	out := make([]line, height)
	for y := range height {
		var l line
		for i, w := range widths {
			var cell line
			if y < len(wrapped[i]) {
				cell = wrapped[i][y]
			}
			if i > 0 {
				l = append(l, frag{text: " ", st: style{}}, frag{text: r.lk.tableCol, st: r.lk.tableRule}, frag{text: " ", st: style{}})
			}
			l = append(l, aligned(cell, w, aligns[i])...)
		}
		out[y] = l
	}
	return out
}

func aligned(cell line, width int, a east.Alignment) line {
	gap := max(width-cell.width(), 0)
	left := 0
	switch a {
	case east.AlignRight:
		left = gap
	case east.AlignCenter:
		left = gap / 2
	}
	out := line{{text: strings.Repeat(" ", left)}}
	out = append(out, cell...)
	return append(out, frag{text: strings.Repeat(" ", gap-left)})
}

func (r *renderer) tableRule(widths []int) line {
	var b strings.Builder
	for i, w := range widths {
		if i > 0 {
			b.WriteString(r.lk.tableRow + r.lk.tableCross + r.lk.tableRow)
		}
		b.WriteString(strings.Repeat(r.lk.tableRow, w))
	}
	return line{{text: b.String(), st: r.lk.tableRule}}
}

// stackedTable is a table for a pane too narrow for its columns: each row a group of
// "header: value" lines.
func (r *renderer) stackedTable(rows [][]tableCell, width int) []line {
	header := rows[0]
	var out []line
	for ri, cells := range rows[1:] {
		if ri > 0 {
			out = append(out, nil)
		}
		for i, c := range cells {
			var ws []word
			if i < len(header) {
				ws = append(ws, header[i].words...)
				if n := len(ws); n > 0 && len(ws[n-1].frags) > 0 {
					last := ws[n-1]
					last.frags = append(append([]frag{}, last.frags...), frag{text: ":", st: last.frags[len(last.frags)-1].st})
					last.width++
					ws[n-1] = last
				}
			}
			ws = append(ws, c.words...)
			out = append(out, wrap(ws, width)...)
		}
	}
	if len(out) == 0 {
		for _, c := range header {
			out = append(out, wrap(c.words, width)...)
		}
	}
	return out
}
