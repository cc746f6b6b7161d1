package ui

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/keymap"
)

// The new keys are in the help, rebindable in [keys], and in the footer only where they apply.
func TestViewKeysShowInHelpRebindAndApplyInTheFooter(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	km := keymap.Default()
	if err := keymap.Apply(&km, map[string]any{"global.zoom": "Z", "global.info": "f9", "thread.copy": "c", "fleet.continue": "C"}); err != nil {
		t.Fatal(err)
	}
	a := newTestApp(t, rt, 200, 50, func(o *Options) { o.Keys = km })
	a.press(a.km.Global.Help)
	help := a.view()
	for _, want := range []string{"zoom pane", "show in full", "copy id", "copy link", "search text", "next match", "previous match"} {
		mustContain(t, help, want)
	}
	mustContain(t, help, "Z          zoom pane", "f9         show in full")
	a.press(a.km.Global.Help)

	a.send(keymap.MustMsg("z"))
	if a.zoomed {
		t.Fatal("the old zoom key still zooms")
	}
	a.send(keymap.MustMsg("Z"))
	if !a.zoomed {
		t.Fatal("the rebound zoom key does nothing")
	}
	a.send(keymap.MustMsg("Z"))
	a.send(keymap.MustMsg("f9"))
	if !a.details.open {
		t.Fatal("the rebound info key does nothing")
	}
	a.send(keymap.MustMsg("q"))

	// Footer: the search's walking keys only once a search is on; copy only with a selection.
	a.press(a.km.List.Select)
	f := a.footer()
	mustContain(t, f, "/ search text", "c Y copy id/link")
	mustNotContain(t, f, "next/prev match")
	a.press(a.km.Global.Watches)
	mustNotContain(t, a.footer(), "copy id/link")
	if strings.Count(a.footer(), "? help") != 1 {
		t.Fatalf("footer: %s", a.footer())
	}
}
