package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/themes"
)

// Searching a transcript: / types a query, enter jumps to the first match from the top of
// the view, n and N walk the matches, esc clears. The matches are found in the drawn lines,
// so what is found is what is on screen; they are found again whenever the lines change.

// textMatch is one occurrence of the query: a body line and a byte range of its plain text.
type textMatch struct{ line, start, end int }

type transcriptSearch struct {
	input  textinput.Model
	typing bool
	query  string // the applied query; empty when no search is on

	matches []textMatch
	cur     int      // the current match; -1 before the first jump
	in      []string // the body the matches were found in
	inQuery string
}

func newTranscriptSearch(c *common) transcriptSearch {
	ti := textinput.New()
	ti.Prompt = "/ "
	ti.Placeholder = "search this transcript"
	ti.CharLimit = 200
	ti.PromptStyle, ti.TextStyle, ti.PlaceholderStyle = c.st.Accent, c.st.Text, c.st.Muted
	ti.Cursor.SetMode(cursor.CursorStatic)
	return transcriptSearch{input: ti, cur: -1}
}

// active reports a search being typed or applied: esc is then the search's.
func (s *transcriptSearch) active() bool { return s.typing || s.query != "" }

// rows is the lines the search line takes from the body.
func (s *transcriptSearch) rows() int {
	if s.active() {
		return 1
	}
	return 0
}

func (s *transcriptSearch) clear() {
	s.typing, s.query, s.matches, s.cur, s.in, s.inQuery = false, "", nil, -1, nil, ""
	s.input.Blur()
	s.input.SetValue("")
}

// sync finds the matches again when the lines or the query changed, keeping the current
// match where it was when it is still there.
func (s *transcriptSearch) sync(body []string) {
	if s.query == "" {
		s.matches, s.in = nil, nil
		return
	}
	if s.inQuery == s.query && sameLines(s.in, body) {
		return
	}
	var was *textMatch
	if s.cur >= 0 && s.cur < len(s.matches) {
		m := s.matches[s.cur]
		was = &m
	}
	s.in, s.inQuery = body, s.query
	s.matches = s.matches[:0]
	q := strings.ToLower(s.query)
	for i, l := range body {
		plain := ansi.Strip(l)
		for _, r := range findAll(plain, q) {
			s.matches = append(s.matches, textMatch{line: i, start: r[0], end: r[1]})
		}
	}
	switch {
	case was == nil:
	case len(s.matches) == 0:
		s.cur = -1
	default:
		s.cur = min(s.cur, len(s.matches)-1)
		for i, m := range s.matches {
			if m == *was {
				s.cur = i
			}
		}
	}
}

// sameLines reports the very same drawn body: the pane builds a new slice on every change.
func sameLines(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// findAll is the byte ranges of lower (a lowercase query) in text, ignoring case; where
// lowercasing would change the text's length, case counts.
func findAll(text, lower string) [][2]int {
	if lower == "" {
		return nil
	}
	hay := strings.ToLower(text)
	if len(hay) != len(text) {
		hay, lower = text, strings.ToLower(lower)
	}
	var out [][2]int
	for from := 0; ; {
		i := strings.Index(hay[from:], lower)
		if i < 0 {
			return out
		}
		out = append(out, [2]int{from + i, from + i + len(lower)})
		from += i + len(lower)
	}
}

// handleKey takes the search's keys; handled is false for the keys it leaves to the pane.
func (t *transcriptPane) searchKey(k tea.KeyMsg) (cmd tea.Cmd, handled bool) {
	s, km := &t.search, t.c.keys
	if s.typing {
		switch {
		case key.Matches(k, km.Input.Submit):
			s.typing = false
			s.input.Blur()
			s.query = strings.TrimSpace(s.input.Value())
			if s.query == "" {
				s.clear()
				return nil, true
			}
			s.cur, s.inQuery = -1, ""
			t.jumpToMatch(0)
		case key.Matches(k, km.Input.Cancel):
			s.clear()
		default:
			s.input, cmd = s.input.Update(k)
		}
		return cmd, true
	}
	switch {
	case key.Matches(k, km.Transcript.Search):
		s.typing = true
		s.input.SetValue(s.query)
		s.input.CursorEnd()
		s.input.Width = max(t.w-4, 1)
		return s.input.Focus(), true
	case s.query == "":
		return nil, false
	case key.Matches(k, km.Transcript.NextMatch):
		t.jumpToMatch(1)
	case key.Matches(k, km.Transcript.PrevMatch):
		t.jumpToMatch(-1)
	case key.Matches(k, km.Transcript.ClearSearch):
		s.clear()
	default:
		return nil, false
	}
	t.clamp()
	return nil, true
}

// jumpToMatch moves to the next match (dir 1), the previous (-1), or the first at or below
// the top of the view (0), and scrolls it into the view's middle; the search wraps around.
func (t *transcriptPane) jumpToMatch(dir int) {
	s := &t.search
	s.sync(t.body())
	n := len(s.matches)
	if n == 0 {
		return
	}
	switch {
	case dir == 0 || s.cur < 0:
		s.cur = 0
		for i, m := range s.matches {
			if m.line >= t.offset {
				s.cur = i
				break
			}
		}
	default:
		s.cur = ((s.cur+dir)%n + n) % n
	}
	t.follow = false
	t.offset = s.matches[s.cur].line - t.bodyHeight()/2
	t.clamp()
}

// highlight draws body line i with its matches marked: the current one in the selection's
// style (bracketed without colour, where styles draw nothing), the others dimmer.
func (s *transcriptSearch) highlight(st *themes.Styles, i int, line string) string {
	if s.query == "" || len(s.matches) == 0 {
		return line
	}
	var ms []textMatch
	for _, m := range s.matches {
		if m.line == i {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return line
	}
	plain := ansi.Strip(line)
	var b strings.Builder
	at := 0
	for _, m := range ms {
		b.WriteString(plain[at:m.start])
		word := plain[m.start:m.end]
		switch {
		case s.cur >= 0 && s.matches[s.cur] == m && st.NoColor:
			b.WriteString("[" + word + "]")
		case s.cur >= 0 && s.matches[s.cur] == m:
			b.WriteString(st.Selected.Render(word))
		default:
			b.WriteString(st.SelectedInactive.Render(word))
		}
		at = m.end
	}
	b.WriteString(plain[at:])
	return b.String()
}

// line is the search's own line under the body: the input while typing, then the query with
// where the current match is among all ("3/12").
func (t *transcriptPane) searchLine() string {
	s, st, km := &t.search, t.c.st, t.c.keys.Transcript
	if s.typing {
		s.input.Width = max(t.w-4, 1)
		return s.input.View()
	}
	if s.query == "" {
		return ""
	}
	head := st.Accent.Render("search: " + oneLine(s.query))
	if len(s.matches) == 0 {
		return head + st.Danger.Render("  no match") + st.Muted.Render("  ("+km.ClearSearch.Help().Key+" clears)")
	}
	pos := "-"
	if s.cur >= 0 {
		pos = fmt.Sprint(s.cur + 1)
	}
	return head + " " + st.OK.Render(fmt.Sprintf("%s/%d", pos, len(s.matches))) +
		st.Muted.Render("  ("+km.NextMatch.Help().Key+"/"+km.PrevMatch.Help().Key+" next/previous, "+km.ClearSearch.Help().Key+" clears)")
}

// searchHelp is the search's keys for the footer, only those that apply now.
func (t *transcriptPane) searchHelp() []key.Binding {
	k := t.c.keys
	switch {
	case t.search.typing:
		return []key.Binding{k.Input.Submit, k.Input.Cancel}
	case t.search.query != "":
		return []key.Binding{navHelp(k.Transcript.NextMatch, k.Transcript.PrevMatch, "next/prev match"), k.Transcript.ClearSearch}
	}
	return []key.Binding{k.Transcript.Search}
}
