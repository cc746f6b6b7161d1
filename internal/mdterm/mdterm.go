// Package mdterm draws markdown (CommonMark and the GFM pieces coding agents write) as lines
// of terminal text fitted to a width, in the dark, light or plain look.
//
// Nothing here costs at program start: the parser and the highlighter's tables are built on
// first use, so commands that never draw a transcript never pay for them.
package mdterm

import (
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

var sharedParser = sync.OnceValue(newParser)

// Render draws markdown src in width cells: look is "dark", "light" or anything else for
// plain text (no colour, no attributes); profile decides which colours the terminal gets.
// No line is wider than width.
func Render(src string, width int, lookName string, profile termenv.Profile) []string {
	width = max(width, 1)
	lines := renderLines(src, width, lookName, profile)
	out := lines[:0]
	for _, l := range lines {
		// Only a width too narrow for a block's own indent gets here.
		if textWidth(l) > width {
			out = append(out, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
			continue
		}
		out = append(out, l)
	}
	return out
}

func renderLines(src string, width int, lookName string, profile termenv.Profile) []string {
	lk := lookFor(lookName)
	r := &renderer{src: []byte(src), lk: lk, p: newPainter(profile, lk.plain)}
	doc := sharedParser().Parse(text.NewReader(r.src), parser.WithContext(parser.NewContext()))
	blocks := r.blocks(doc, width)
	out := make([]string, 0, len(blocks))
	for _, l := range blocks {
		out = append(out, r.emit(l))
	}
	return out
}

type renderer struct {
	src []byte
	lk  look
	p   *painter
}

// emit prints a line, one escape sequence per run of equal style.
func (r *renderer) emit(l line) string {
	var b strings.Builder
	for i := 0; i < len(l); {
		j, st := i, l[i].st
		var run strings.Builder
		for ; j < len(l) && l[j].st == st; j++ {
			run.WriteString(l[j].text)
		}
		b.WriteString(r.p.paint(st, run.String()))
		i = j
	}
	return strings.TrimRight(b.String(), " ")
}

// blocks draws the children of a container, a blank line between them (none in a tight list).
func (r *renderer) blocks(n gast.Node, width int) []line {
	var out []line
	tight := false
	if l, ok := n.(*gast.ListItem); ok {
		if list, ok := l.Parent().(*gast.List); ok {
			tight = list.IsTight
		}
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := r.block(c, width)
		if len(b) == 0 {
			continue
		}
		if len(out) > 0 && !tight {
			out = append(out, nil)
		}
		out = append(out, b...)
	}
	return out
}

func (r *renderer) block(n gast.Node, width int) []line {
	switch n := n.(type) {
	case *gast.Paragraph, *gast.TextBlock:
		return wrap(words(r.inlineFrags(n, r.lk.text, false)), width)
	case *gast.Heading:
		return r.heading(n, width)
	case *gast.ThematicBreak:
		rule := r.lk.ruleText
		if textWidth(rule) > width {
			rule = strings.Repeat("-", width)
		}
		return []line{{{text: rule, st: r.lk.rule}}}
	case *gast.FencedCodeBlock:
		return r.codeBlock(n, string(n.Language(r.src)), width)
	case *gast.CodeBlock:
		return r.codeBlock(n, "", width)
	case *gast.HTMLBlock:
		return r.htmlBlock(n, width)
	case *gast.Blockquote:
		return r.quote(n, width)
	case *gast.List:
		return r.list(n, width)
	default:
		if isTable(n) {
			return r.table(n, width)
		}
		if n.HasChildren() {
			return r.blocks(n, width)
		}
		return nil
	}
}
