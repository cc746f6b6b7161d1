package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/config"
)

// A nonexistent entry of allowed_project_roots is ignored by handoffs; doctor warns of it by
// its index and path, and the config is still valid.
func TestDoctorWarnsOfAMissingAllowedProjectRoot(t *testing.T) {
	t.Parallel()
	home := doctorHome(t)
	exists := t.TempDir()
	missing := filepath.Join(exists, "not-created")
	cfg := "[handoff]\nallowed_project_roots = [" + tomlQuote(missing) + ", " + tomlQuote(exists) + "]\n"
	path := filepath.Join(home, config.FileName)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil || os.Chmod(path, 0o600) != nil {
		t.Fatal(err)
	}
	out, _, _ := run(t, "doctor", "--json")
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor JSON: %v\n%s", err, out)
	}
	if !rep.Config.OK || len(rep.Config.Warnings) != 1 || !strings.Contains(rep.Config.Warnings[0], "allowed_project_roots[0] ("+missing+")") {
		t.Fatalf("doctor config %+v", rep.Config)
	}
	human, _, _ := run(t, "doctor")
	if !strings.Contains(human, "warning: handoff.allowed_project_roots[0] ("+missing+") is not an existing directory and is ignored") {
		t.Fatalf("doctor:\n%s", human)
	}
}

func tomlQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
