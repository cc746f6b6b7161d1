package mdterm

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/internal/termsafe"
)

// frag is text in one style; a line is frags side by side.
type frag struct {
	text string
	st   style
	keep bool // never split at its spaces (a code span's padding)
}

type line []frag

func (l line) width() int {
	w := 0
	for _, f := range l {
		w += textWidth(f.text)
	}
	return w
}

// textWidth is the cells text takes, measured as the transcript pane measures.
func textWidth(s string) int { return ansi.StringWidth(s) }

// word is what wrapping never splits unless it must: frags with no space between them.
type word struct {
	frags []frag
	width int
	wide  bool  // holds East Asian wide text, which may break between any two characters
	space style // style of the space before it
	brk   bool  // a hard line break comes before it
}

// words splits runs of styled text at spaces; soft line breaks are spaces.
func words(frags []frag) []word {
	var out []word
	var cur word
	inWord := false
	var pendingSpace style
	flush := func() {
		if inWord {
			out = append(out, cur)
		}
		cur, inWord = word{}, false
	}
	for _, f := range frags {
		if f.text == "\n" {
			flush()
			out = append(out, word{brk: true})
			continue
		}
		if f.keep {
			if !inWord {
				cur.space = pendingSpace
			}
			cur.add(f.text, f.st)
			inWord = true
			continue
		}
		start := 0
		for i, r := range f.text {
			if r == ' ' || r == '\t' || r == '\n' {
				if start < i {
					cur.add(f.text[start:i], f.st)
					inWord = true
				}
				if inWord {
					flush()
				}
				pendingSpace = f.st
				start = i + len(string(r))
				continue
			}
			if !inWord && start == i {
				cur.space = pendingSpace
			}
		}
		if start < len(f.text) {
			cur.add(f.text[start:], f.st)
			inWord = true
		}
	}
	flush()
	return out
}

func (w *word) add(text string, st style) {
	w.frags = append(w.frags, frag{text: text, st: st})
	w.width += textWidth(text)
	if !w.wide {
		for _, r := range text {
			if r >= 0x1100 && textWidth(string(r)) == 2 {
				w.wide = true
				break
			}
		}
	}
}

// wrap lays words out in lines of at most width cells. A word wider than a line, and wide
// (CJK) text, is broken between characters.
func wrap(ws []word, width int) []line {
	width = max(width, 1)
	var lines []line
	var cur line
	curW := 0
	newLine := func() {
		lines = append(lines, cur)
		cur, curW = nil, 0
	}
	for _, w := range ws {
		if w.brk {
			newLine()
			continue
		}
		sp := 0
		if curW > 0 {
			sp = 1
		}
		if curW+sp+w.width <= width {
			if sp == 1 {
				cur = append(cur, frag{text: " ", st: w.space})
			}
			cur = append(cur, w.frags...)
			curW += sp + w.width
			continue
		}
		if !w.wide && w.width <= width {
			newLine()
			cur, curW = append(cur, w.frags...), w.width
			continue
		}
		if sp == 1 && curW+1 < width {
			cur = append(cur, frag{text: " ", st: w.space})
			curW++
		} else if curW > 0 && !w.wide {
			newLine()
		}
		for _, f := range w.frags {
			cur, curW, lines = breakInto(f, cur, curW, width, lines)
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

// breakInto adds f to cur character by character, starting new lines when full.
func breakInto(f frag, cur line, curW, width int, lines []line) (line, int, []line) {
	s := f.text
	var b strings.Builder
	for s != "" {
		cluster, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth)
		s = s[len(cluster):]
		if curW+w > width && (curW > 0 || b.Len() > 0) {
			if b.Len() > 0 {
				cur = append(cur, frag{text: b.String(), st: f.st})
				b.Reset()
			}
			lines = append(lines, cur)
			cur, curW = nil, 0
		}
		b.WriteString(cluster)
		curW += w
	}
	if b.Len() > 0 {
		cur = append(cur, frag{text: b.String(), st: f.st})
	}
	return cur, curW, lines
}

// cut breaks a line of code at width without moving words: what does not fit continues on
// the next line.
func cut(l line, width int) []line {
	width = max(width, 1)
	if l.width() <= width {
		return []line{l}
	}
	var lines []line
	var cur line
	curW := 0
	for _, f := range l {
		cur, curW, lines = breakInto(f, cur, curW, width, lines)
	}
	return append(lines, cur)
}

// clean makes text safe to print: control characters (an escape sequence in a message
// would drive the terminal) and invalid UTF-8 show as U+FFFD, tabs as spaces, bidi controls
// as <U+XXXX>.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) {
		return termsafe.String(s)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case r == '\n':
			b.WriteRune(r)
		case unicode.IsControl(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
	return termsafe.String(b.String())
}
