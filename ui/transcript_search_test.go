package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestTranscriptSearchJumpsCountsAndWalksMatches(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.List.Select) // opens idA's transcript and focuses it
	if a.focus != paneTranscript {
		t.Fatalf("focus %d", a.focus)
	}
	a.press(a.km.Transcript.Search)
	if !a.transcript.Capturing() {
		t.Fatal("the search line does not take the keyboard")
	}
	a.typeText("RACE") // case does not count; n and N are text while typing
	mustContain(t, a.transcript.View(), "/ RACE")
	a.press(a.km.Input.Submit)
	s := &a.transcript.search
	if len(s.matches) != 2 {
		t.Fatalf("%d matches: %+v", len(s.matches), s.matches)
	}
	v := a.transcript.View()
	mustContain(t, v, "search: RACE 1/2", "[race]")
	first := s.matches[0].line
	if first < a.transcript.offset || first >= a.transcript.offset+a.transcript.bodyHeight() {
		t.Fatalf("match line %d is not in view from %d", first, a.transcript.offset)
	}
	a.press(a.km.Transcript.NextMatch)
	mustContain(t, a.transcript.View(), "2/2", "fix the [race]")
	a.press(a.km.Transcript.NextMatch)
	mustContain(t, a.transcript.View(), "1/2")
	a.press(a.km.Transcript.PrevMatch)
	mustContain(t, a.transcript.View(), "2/2")
	mustContain(t, a.footer(), "next/prev match")

	a.press(a.km.Transcript.ClearSearch)
	v = a.transcript.View()
	mustNotContain(t, v, "search:", "[race]")

	a.press(a.km.Transcript.Search)
	a.typeText("no such words")
	a.press(a.km.Input.Submit)
	mustContain(t, a.transcript.View(), "no match")
}

// The fleet keeps its own title search: / there filters sessions, not the transcript.
func TestSlashSearchesThePaneThatHasFocus(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.List.Select)
	a.press(a.km.Transcript.Search)
	a.typeText("cache")
	a.press(a.km.Input.Submit)
	a.press(a.km.Global.Fleet)
	a.press(a.km.Fleet.Search)
	if !a.fleet.Capturing() || a.transcript.search.typing {
		t.Fatal("/ in the fleet did not open the fleet's search")
	}
	a.typeText("flaky") // the shown thread stays in the list, so the transcript stays on it
	a.press(a.km.Input.Submit)
	mustContain(t, a.fleet.Title(), "search flaky")
	if a.transcript.search.query != "cache" {
		t.Fatalf("the transcript's search changed: %q", a.transcript.search.query)
	}
	// A new thread in the transcript starts without a search.
	a.press(a.km.Fleet.ClearSearch)
	a.press(a.km.List.Down)
	a.press(a.km.List.Select)
	if a.transcript.search.active() || strings.Contains(a.transcript.View(), "search:") {
		t.Fatal("the search outlived its transcript")
	}
}

// Any drawn line and any query: matches are ranges of the line's plain text, and marking the
// current one changes nothing else.
func FuzzTranscriptSearchHighlight(f *testing.F) {
	for _, s := range [][2]string{
		{"  a \x1b[1mrace\x1b[0m in the cache", "race"}, {"İstanbul straße", "i"}, {"ＲＡＣＥ race", "race"},
		{"▌ you", "▌"}, {"", "x"}, {"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"}, {"aaaa", "aa"},
	} {
		f.Add(s[0], s[1])
	}
	st := asciiStyles()
	f.Fuzz(func(t *testing.T, line, query string) {
		s := transcriptSearch{query: strings.TrimSpace(query), cur: -1}
		body := []string{line}
		s.sync(body)
		plain := ansi.Strip(line)
		for _, m := range s.matches {
			if m.line != 0 || m.start < 0 || m.end > len(plain) || m.start >= m.end {
				t.Fatalf("match %+v outside %q", m, plain)
			}
		}
		if len(s.matches) == 0 {
			return
		}
		s.cur = len(s.matches) - 1
		m := s.matches[s.cur]
		if got, want := s.highlight(&st, 0, line), plain[:m.start]+"["+plain[m.start:m.end]+"]"+plain[m.end:]; got != want {
			t.Fatalf("highlight(%q, %q) = %q, want %q", line, s.query, got, want)
		}
	})
}
