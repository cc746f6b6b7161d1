package cli

import (
	"strings"
	"testing"
)

// `codexhost skill` says it can install, remove or check the skill: "remove" and "check"
// lead to the commands that do it.
func TestSkillRemoveAndCheckSuggestTheirCommands(t *testing.T) {
	t.Parallel()
	for word, want := range map[string]string{"remove": "codexhost skill uninstall", "check": "codexhost skill status"} {
		_, errOut, code := run(t, "skill", word)
		if code != 1 || !strings.Contains(errOut, "did you mean `"+want+"`?") {
			t.Errorf("skill %s: code %d, %q; want a hint naming %s", word, code, errOut, want)
		}
	}
}
