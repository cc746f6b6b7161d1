package ui

import (
	"strings"
	"testing"
)

// The footer leaves out the key hints that do not fit, whole: a hint cut in the middle
// ("m se…", "w w…") names no action. "…" says that more are in the help.
func TestFooterDropsWholeKeyHintsThatDoNotFit(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	for _, w := range []int{80, 86, 93, 100, 107, 114, 120, 130, 140} {
		a := newTestApp(t, rt, w, 30)
		f := a.footer()
		if got := ansiWidth(f); got > w {
			t.Fatalf("width %d: footer is %d cells: %q", w, got, f)
		}
		for _, seg := range strings.Split(strings.TrimSpace(f), " • ") {
			if strings.HasSuffix(seg, "…") && seg != "…" {
				t.Fatalf("width %d: a hint is cut: %q in %q", w, seg, f)
			}
		}
		mustContain(t, f, "? help • q quit")
	}
}
