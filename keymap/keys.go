package keymap

import (
	"strings"
	"sync"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
)

// keyTypes maps Bubble Tea's key names ("enter", "ctrl+a", "pgdown") to their types. Built
// from the library's own names so that what validates is exactly what a key press reports.
// Built on first use: a package-level map or regexp is built by every process at start.
var keyTypes = sync.OnceValue(func() map[string]tea.KeyType {
	m := map[string]tea.KeyType{}
	for k := -200; k <= 200; k++ {
		kt := tea.KeyType(k)
		if kt == tea.KeyRunes {
			continue
		}
		if s := (tea.Key{Type: kt}).String(); s != "" && s != " " {
			if _, dup := m[s]; !dup {
				m[s] = kt
			}
		}
	}
	return m
})

// aliases are spellings people write in config files for keys Bubble Tea names otherwise.
// A switch, not a map: a map literal is built by every process at start.
func alias(s string) (string, bool) {
	switch s {
	case "space":
		return " ", true
	case "return":
		return "enter", true
	case "escape":
		return "esc", true
	case "pagedown":
		return "pgdown", true
	case "pageup":
		return "pgup", true
	}
	return "", false
}

// Normalize returns the Bubble Tea name of a key written in a config file, and whether it
// names a key at all.
func Normalize(s string) (string, bool) {
	if a, ok := alias(strings.ToLower(s)); ok {
		s = a
	}
	_, ok := Msg(s)
	return s, ok
}

// Msg is the key message a terminal reports for the key named s (as key.Binding stores it).
// Tests press keys through it.
func Msg(s string) (tea.KeyMsg, bool) {
	alt := false
	if rest, ok := strings.CutPrefix(s, "alt+"); ok && rest != "" {
		alt, s = true, rest
	}
	if s == " " {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}, Alt: alt}, true
	}
	if kt, ok := keyTypes()[s]; ok {
		return tea.KeyMsg{Type: kt, Alt: alt}, true
	}
	if utf8.RuneCountInString(s) == 1 {
		r, _ := utf8.DecodeRuneInString(s)
		if r >= ' ' && r != utf8.RuneError && r != 0x7f {
			return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: alt}, true
		}
	}
	return tea.KeyMsg{}, false
}

// MustMsg is Msg for keys known to exist; it panics otherwise (tests and built-in keys only).
func MustMsg(s string) tea.KeyMsg {
	m, ok := Msg(s)
	if !ok {
		panic("keymap: no key named " + s)
	}
	return m
}
