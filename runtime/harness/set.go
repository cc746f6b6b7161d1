package harness

import (
	"sort"

	"github.com/codexhost/codexhost/model"
)

// Set is a runtime's harnesses by name, the native one under model.NativeHarness: the
// registry the thread and marker capabilities look harnesses up in.
type Set map[string]Harness

// Harness is the harness registered under name.
func (s Set) Harness(name string) (Harness, bool) {
	hs, ok := s[name]
	return hs, ok
}

// Native is the Codex harness of the default home (nil when none is registered).
func (s Set) Native() *Native {
	n, _ := s[model.NativeHarness].(*Native)
	return n
}

// Names lists the registered harnesses, native first, then by name.
func (s Set) Names() []string {
	names := make([]string, 0, len(s))
	for name := range s {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if (a == model.NativeHarness) != (b == model.NativeHarness) {
			return a == model.NativeHarness
		}
		return a < b
	})
	return names
}
