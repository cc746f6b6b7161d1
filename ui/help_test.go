package ui

import (
	"testing"

	"github.com/codexhost/codexhost/keymap"
)

// Every group of keys in the help has a title: without one, the approval keys
// (y, n, c, ...) read as more keys of the section above them.
func TestEveryHelpSectionHasATitle(t *testing.T) {
	t.Parallel()
	km := keymap.Default()
	for _, a := range km.Actions() {
		if scopeTitles[a.Scope] == "" {
			t.Errorf("scope %q of %s has no title in the help", a.Scope, a.Name)
		}
	}
	rt := newFake()
	fleetFixture(rt)
	ta := newTestApp(t, rt, 200, 60)
	ta.press(ta.km.Global.Help)
	mustContain(t, ta.view(), "Approvals")
}
