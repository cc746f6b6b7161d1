package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// A key message carrying several runes (tmux send-keys -l jjj, key repeat over a slow link)
// moves as many rows as separate presses would.
func TestSeveralRunesInOneKeyMessageActAsThatManyKeys(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	first, _ := a.fleet.Selected()
	down := []rune(a.km.List.Down.Keys()[1]) // "j"
	a.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{down[0], down[0]}})
	got, _ := a.fleet.Selected()
	if first.ID != idA || got.ID != idC {
		t.Fatalf("two runes moved from %s to %s, want %s to %s", first.ID, got.ID, idA, idC)
	}

	// Once a rune opens the search line, the rest is text for it.
	search := []rune(a.km.Fleet.Search.Keys()[0])
	a.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: append(search, []rune("rel")...)})
	if !a.fleet.Capturing() || a.fleet.search.Value() != "rel" {
		t.Fatalf("search line holds %q (capturing %v)", a.fleet.search.Value(), a.fleet.Capturing())
	}
	// While it has the keyboard, runes stay text.
	a.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if a.fleet.search.Value() != "reljj" {
		t.Fatalf("search line holds %q", a.fleet.search.Value())
	}
}
