package mdterm

import (
	"strings"

	gast "github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// inlines collects the styled text of a block's inline children.
type inlines struct {
	r       *renderer
	frags   []frag
	inTable bool // a code span in a table cell shows \| as |
}

func (r *renderer) inlineFrags(n gast.Node, base style, inTable bool) []frag {
	in := &inlines{r: r, inTable: inTable}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		in.node(c, base)
	}
	return in.frags
}

func (in *inlines) add(text string, st style) {
	if text != "" {
		in.frags = append(in.frags, frag{text: clean(text), st: st})
	}
}

// mark adds a marker the plain look draws in place of an attribute (**, *, ~~, `).
func (in *inlines) mark(m string, st style) {
	if in.r.lk.plain {
		in.add(m, st)
	}
}

func (in *inlines) children(n gast.Node, st style) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		in.node(c, st)
	}
}

func (in *inlines) node(n gast.Node, st style) {
	src := in.r.src
	switch n := n.(type) {
	case *gast.Text:
		in.add(unescape(n.Segment.Value(src), n.IsRaw()), st)
		if n.HardLineBreak() {
			in.frags = append(in.frags, frag{text: "\n", st: st})
		} else if n.SoftLineBreak() {
			in.add(" ", st)
		}
	case *gast.String:
		in.add(unescape(n.Value, n.IsRaw() || n.IsCode()), st)
	case *gast.CodeSpan:
		in.codeSpan(n)
	case *gast.Emphasis:
		m := strings.Repeat("*", n.Level)
		inner := st
		if n.Level >= 2 {
			inner.bold = true
		} else {
			inner.italic = true
		}
		in.mark(m, st)
		in.children(n, inner)
		in.mark(m, st)
	case *east.Strikethrough:
		inner := st
		inner.strike = true
		in.mark("~~", st)
		in.children(n, inner)
		in.mark("~~", st)
	case *gast.Link:
		in.link(n, string(n.Destination), st)
	case *gast.AutoLink:
		in.add(string(n.URL(src)), in.r.linkStyle(st))
	case *gast.Image:
		in.add("Image: ", st)
		in.children(n, in.r.linkTextStyle(st))
		in.add(" → ", st)
		in.add(string(n.Destination), in.r.linkStyle(st))
	case *gast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			in.add(string(seg.Value(src)), st)
		}
	case *east.TaskCheckBox:
		// Drawn as the list item's marker.
	default:
		in.children(n, st)
	}
}

func (in *inlines) codeSpan(n *gast.CodeSpan) {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *gast.Text:
			b.Write(t.Segment.Value(in.r.src))
		case *gast.String:
			b.Write(t.Value)
		}
	}
	code := strings.ReplaceAll(b.String(), "\n", " ")
	if in.inTable {
		code = strings.ReplaceAll(code, `\|`, "|")
	}
	if in.r.lk.plain {
		in.add("`"+code+"`", style{})
		return
	}
	// The padding is part of the span's background, as a chip, and stays with the words it
	// pads; the spaces inside may still break.
	st := in.r.lk.codeSpan
	parts := strings.Split(clean(code), " ")
	parts[0] = " " + parts[0]
	parts[len(parts)-1] += " "
	for i, p := range parts {
		if i > 0 {
			in.frags = append(in.frags, frag{text: " ", st: st})
		}
		in.frags = append(in.frags, frag{text: p, st: st, keep: true})
	}
}

// link shows its text and its address; an address that is its own text shows once.
func (in *inlines) link(n gast.Node, dest string, st style) {
	before := len(in.frags)
	in.children(n, in.r.linkTextStyle(st))
	var text strings.Builder
	for _, f := range in.frags[before:] {
		text.WriteString(f.text)
	}
	if dest == "" || dest == text.String() || strings.HasPrefix(dest, "#") {
		return
	}
	in.add(" ", st)
	in.add(dest, in.r.linkStyle(st))
}

func (r *renderer) linkStyle(base style) style {
	if r.lk.plain {
		return base
	}
	return r.lk.link
}

func (r *renderer) linkTextStyle(base style) style {
	if r.lk.plain {
		return base
	}
	return r.lk.linkText
}

// unescape resolves backslash escapes and entities as an HTML renderer would, so \* shows *.
func unescape(v []byte, raw bool) string {
	if raw {
		return string(v)
	}
	v = util.UnescapePunctuations(v)
	v = util.ResolveNumericReferences(v)
	v = util.ResolveEntityNames(v)
	return string(v)
}
