package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
)

// legacyConfig is a config.toml from before the fleet catalog, beside canonical keys: the
// explicit supervision.allowWriteControls = false must win over the legacy true.
const legacyConfig = `
[catalog]
codex_homes = ["/codex/one"]

[supervision]
allowWriteControls = false

[supervisor]
endpoints = ["/codex/one", "/codex/two"]
enabled = true
allowRawTranscripts = true
allowWriteControls = true
max_stored_sessions = 40
`

// doctorHome is a codexhost home holding legacyConfig (mode 0644, as an old editor left it)
// and a codex binary the check finds.
func doctorHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.Chmod(home, 0o700); err != nil { // a home others can enter is a problem
		t.Fatal(err)
	}
	setenv(t, envHome, home)
	codex := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(codex, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	setenv(t, "CODEXHOST_CODEX_BIN", codex)
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte(legacyConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// Scenario: S003-22 — `codexhost doctor` reports the legacy [supervisor] table without
// touching the file, other commands refuse it naming `codexhost doctor --fix`, and
// `doctor --fix --json` migrates it (canonical values win), rewrites the file 0600 and
// reports every key; a second --fix finds nothing.
func TestS003_22_DoctorFixMigratesTheLegacySupervisorConfig(t *testing.T) {
	t.Parallel()
	home := doctorHome(t)
	path := filepath.Join(home, config.FileName)

	// Problems found: the report on stdout, exit 1.
	out, errOut, code := run(t, "doctor", "--json")
	if code != 1 || errorCode(t, errOut) != model.CodeFailedPrecondition {
		t.Fatalf("doctor: %d %s", code, errOut)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor JSON: %v\n%s", err, out)
	}
	m := rep.Config.Migration
	if rep.OK || rep.Config.OK || m == nil || !m.Legacy || m.Applied || len(m.Changes) != 5 || rep.Config.Error == nil ||
		!strings.Contains(rep.Config.Error.Hint, "codexhost doctor --fix") || !rep.Codex.OK {
		t.Fatalf("doctor report %s", out)
	}
	if b, _ := os.ReadFile(path); string(b) != legacyConfig {
		t.Fatal("doctor without --fix changed config.toml")
	}
	human, _, code := run(t, "doctor")
	if code != 1 || !strings.Contains(human, "legacy [supervisor] table found") || !strings.Contains(human, "supervisor.endpoints -> catalog.codex_homes: merged (1 added, 1 already listed)") ||
		!strings.Contains(human, "codexhost doctor --fix") || !strings.HasSuffix(human, "problems found\n") {
		t.Fatalf("doctor human output (%d):\n%s", code, human)
	}
	// The runtime side reads only the canonical shape: any command that loads config.toml
	// fails, and says how to fix it.
	_, errOut, code = run(t, "client", "add", "bot")
	if code != 1 || errorCode(t, errOut) != model.CodeFailedPrecondition || !strings.Contains(errOut, "codexhost doctor --fix") {
		t.Fatalf("client add on a legacy config (%d): %s", code, errOut)
	}

	out, errOut, code = run(t, "doctor", "--fix", "--json")
	if code != 0 {
		t.Fatalf("doctor --fix: %d %s", code, errOut)
	}
	rep = doctorReport{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if m = rep.Config.Migration; !rep.OK || !m.Legacy || !m.Applied {
		t.Fatalf("doctor --fix report %s", out)
	}
	want := map[string]string{
		"supervisor.endpoints":           config.MigrationMerged,
		"supervisor.enabled":             config.MigrationMoved,
		"supervisor.allowRawTranscripts": config.MigrationMoved,
		"supervisor.allowWriteControls":  config.MigrationKept,
		"supervisor.max_stored_sessions": config.MigrationMoved,
	}
	for _, c := range m.Changes {
		if want[c.From] != c.Action {
			t.Fatalf("%s: %s, want %s (%s)", c.From, c.Action, want[c.From], out)
		}
		delete(want, c.From)
	}
	if len(want) != 0 || strings.Contains(out, "/codex/") {
		t.Fatalf("report misses %v or shows a path: %s", want, out)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config.toml after --fix: %v %v", st, err)
	}
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatalf("the migrated config does not load: %v", err)
	}
	wantSup := config.CompatTools{Enabled: true, AllowRawTranscripts: true, AllowWriteControls: false, MaxStoredSessions: 40}
	if cfg.CompatTools != wantSup || !slices.Equal(cfg.Catalog.CodexHomes, []string{"/codex/one", "/codex/two"}) {
		t.Fatalf("migrated %+v %v", cfg.CompatTools, cfg.Catalog.CodexHomes)
	}
	migrated, _ := os.ReadFile(path)

	human, errOut, code = run(t, "doctor", "--fix")
	if code != 0 || strings.Contains(human, "legacy") || !strings.HasSuffix(human, "\nok\n") {
		t.Fatalf("second doctor --fix (%d): %s %s", code, human, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != string(migrated) {
		t.Fatal("a second --fix rewrote config.toml")
	}
	if _, errOut, code = run(t, "client", "add", "bot"); code != 0 {
		t.Fatalf("client add after the migration: %s", errOut)
	}
}

// Scenario: S003-22 — a legacy value that cannot migrate fails `doctor --fix` with the key at
// fault and leaves config.toml as it was.
func TestS003_22_DoctorFixRefusesAnInvalidLegacyValue(t *testing.T) {
	t.Parallel()
	home := doctorHome(t)
	path := filepath.Join(home, config.FileName)
	bad := "[supervisor]\nendpoints = [\"relative/home\"]\n"
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "doctor", "--fix")
	if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument || !strings.Contains(errOut, "supervisor.endpoints[0]") || strings.Contains(errOut, "relative/home") {
		t.Fatalf("doctor --fix on a bad endpoint (%d): %s", code, errOut)
	}
	if b, _ := os.ReadFile(path); string(b) != bad {
		t.Fatal("a failed --fix changed config.toml")
	}
}
