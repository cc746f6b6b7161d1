package mdterm

import (
	"strconv"
	"strings"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// heading draws # marks (levels 2 and up, and every level in the plain look); a first-level
// heading in colour is a bar of its own background.
func (r *renderer) heading(n *gast.Heading, width int) []line {
	st, prefix, suffix := r.lk.heading, strings.Repeat("#", n.Level)+" ", ""
	switch {
	case r.lk.plain:
		st = style{}
	case n.Level == 1:
		st, prefix, suffix = r.lk.h1, " ", " "
	case n.Level == 6:
		st = r.lk.h6
	}
	pw, sw := textWidth(prefix), textWidth(suffix)
	if pw+sw >= width {
		prefix, suffix, pw, sw = "", "", 0, 0
	}
	lines := wrap(words(r.inlineFrags(n, st, false)), width-pw-sw)
	for i, l := range lines {
		p := prefix
		if i > 0 {
			p = strings.Repeat(" ", pw)
		}
		lines[i] = append(append(line{{text: p, st: st}}, l...), frag{text: suffix, st: st})
	}
	return lines
}

// codeBlock draws code as written, indented, highlighted when its language is known; a line
// wider than the pane continues on the next one instead of being re-wrapped.
func (r *renderer) codeBlock(n gast.Node, lang string, width int) []line {
	var b strings.Builder
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(r.src))
	}
	code := strings.TrimSuffix(clean(b.String()), "\n")
	margin := 2
	if width < 12 {
		margin = 0
	}
	indent := strings.Repeat(" ", margin)
	var out []line
	for _, l := range r.highlight(code, lang) {
		for _, c := range cut(l, width-margin) {
			out = append(out, append(line{{text: indent, st: style{}}}, c...))
		}
	}
	return out
}

// htmlBlock shows raw HTML as the text it is: nothing is interpreted.
func (r *renderer) htmlBlock(n *gast.HTMLBlock, width int) []line {
	var b strings.Builder
	segs := n.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		b.Write(seg.Value(r.src))
	}
	if n.HasClosure() {
		b.Write(n.ClosureLine.Value(r.src))
	}
	var out []line
	for _, l := range strings.Split(strings.TrimRight(clean(b.String()), "\n"), "\n") {
		out = append(out, wrap(words([]frag{{text: l, st: r.lk.text}}), width)...)
	}
	return out
}

func (r *renderer) quote(n *gast.Blockquote, width int) []line {
	bar := r.lk.quoteBar
	bw := textWidth(bar)
	if bw >= width {
		return r.blocks(n, width)
	}
	inner := r.blocks(n, width-bw)
	for i, l := range inner {
		inner[i] = append(line{{text: bar, st: r.lk.quote}}, l...)
	}
	return inner
}

// list draws bullets, numbers or task boxes, the item's later lines hanging under its text.
func (r *renderer) list(n *gast.List, width int) []line {
	var out []line
	num := n.Start
	markW := 0
	if n.IsOrdered() {
		last := n.Start + n.ChildCount() - 1
		markW = len(strconv.Itoa(last)) + 2
	}
	first := true
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		item, ok := c.(*gast.ListItem)
		if !ok {
			continue
		}
		mark := r.lk.bullet
		if n.IsOrdered() {
			mark = strconv.Itoa(num) + "."
			mark += strings.Repeat(" ", max(markW-len(mark), 1))
			num++
		}
		if box := taskBox(item); box != nil {
			mark = r.lk.unticked
			if box.IsChecked {
				mark = r.lk.ticked
			}
		}
		mw := textWidth(mark)
		if mw >= width {
			mark, mw = "", 0
		}
		body := r.blocks(item, width-mw)
		if len(body) == 0 {
			body = []line{nil}
		}
		if !first && !n.IsTight {
			out = append(out, nil)
		}
		first = false
		pad := strings.Repeat(" ", mw)
		for i, l := range body {
			p := pad
			if i == 0 {
				p = mark
			}
			out = append(out, append(line{{text: p, st: r.lk.text}}, l...))
		}
	}
	return out
}

func taskBox(item *gast.ListItem) *east.TaskCheckBox {
	block := item.FirstChild()
	if block == nil {
		return nil
	}
	box, _ := block.FirstChild().(*east.TaskCheckBox)
	return box
}
