package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/agentskill"
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

// A copy the user changed is left alone, and the line says what to do to get this build's
// copy (install) or to be rid of it (uninstall).
func TestSkillConflictNamesTheFix(t *testing.T) {
	home := t.TempDir()
	setenv(t, "HOME", home)
	setenv(t, "CODEX_HOME", filepath.Join(home, ".codex"))
	if _, errOut, code := run(t, "skill", "install"); code != 0 {
		t.Fatalf("install: %d %s", code, errOut)
	}
	mine := filepath.Join(agentskill.Roots(home)[0], agentskill.Name, "SKILL.md")
	if err := os.WriteFile(mine, []byte("my own notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"install":   "move " + filepath.Dir(mine) + " aside and run `codexhost skill install` again",
		"uninstall": "delete " + filepath.Dir(mine) + " yourself",
	} {
		out, errOut, code := run(t, "skill", cmd)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("skill %s: code %d %s\n%s\nwant %q", cmd, code, errOut, out, want)
		}
	}
}
