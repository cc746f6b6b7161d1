package config

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// actions maps each change's From key to its action.
func actions(m *Migration) map[string]string {
	out := map[string]string{}
	for _, c := range m.Changes {
		out[c.From] = c.Action
	}
	return out
}

// Scenario: S003-22 — the legacy [supervisor] table migrates to [catalog] codex_homes and
// [supervision]: endpoints are merged without duplicates, absent canonical keys take the
// legacy values, explicit canonical values win on conflict, and the result loads.
func TestS003_22_LegacySupervisorMigratesToTheCanonicalShape(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		homes   []string
		want    CompatTools
		actions map[string]string
	}{
		{
			name: "only legacy",
			body: `
[supervisor]
endpoints = ["/codex/a", "/codex/b/"]
enabled = true
allowRawTranscripts = true
allowWriteControls = true
max_stored_sessions = 300
`,
			homes: []string{"/codex/a", "/codex/b"},
			want:  CompatTools{Enabled: true, AllowRawTranscripts: true, AllowWriteControls: true, MaxStoredSessions: 300},
			actions: map[string]string{
				"supervisor.endpoints": MigrationMerged, "supervisor.enabled": MigrationMoved, "supervisor.allowRawTranscripts": MigrationMoved,
				"supervisor.allowWriteControls": MigrationMoved, "supervisor.max_stored_sessions": MigrationMoved,
			},
		},
		{
			name: "canonical wins on conflict",
			body: `
[catalog]
codex_homes = ["/codex/a"]
[supervision]
enabled = true
allowWriteControls = false
max_stored_sessions = 50
[supervisor]
endpoints = ["/codex/a", "/codex/./a", "/codex/c"]
enabled = true
allowRawTranscripts = true
allowWriteControls = true
max_stored_sessions = 900
`,
			homes: []string{"/codex/a", "/codex/c"},
			want:  CompatTools{Enabled: true, AllowRawTranscripts: true, AllowWriteControls: false, MaxStoredSessions: 50},
			actions: map[string]string{
				"supervisor.endpoints": MigrationMerged, "supervisor.enabled": MigrationSame, "supervisor.allowRawTranscripts": MigrationMoved,
				"supervisor.allowWriteControls": MigrationKept, "supervisor.max_stored_sessions": MigrationKept,
			},
		},
		{
			name:    "empty table",
			body:    "[supervisor]\n",
			actions: map[string]string{},
		},
		{
			name: "other keys survive",
			body: `
codex_bin = "/opt/codex"
[harnesses.shell]
command = ["sh", "-c", "cat"]
[supervisor]
enabled = false
`,
			actions: map[string]string{"supervisor.enabled": MigrationMoved},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, tc.body)
			if _, err := Load(home); !model.IsCode(err, model.CodeFailedPrecondition) {
				t.Fatalf("the runtime read a legacy file: %v", err)
			}
			before, _ := os.ReadFile(filepath.Join(home, FileName))
			seen, err := InspectLegacy(home)
			if err != nil || !seen.Legacy || seen.Applied {
				t.Fatalf("inspect: %+v %v", seen, err)
			}
			if after, _ := os.ReadFile(filepath.Join(home, FileName)); string(after) != string(before) {
				t.Fatal("inspecting rewrote the file")
			}
			m, err := MigrateLegacy(home)
			if err != nil || !m.Legacy || !m.Applied {
				t.Fatalf("migrate: %+v %v", m, err)
			}
			got := actions(m)
			if len(got) != len(tc.actions) {
				t.Fatalf("changes %+v, want %v", m.Changes, tc.actions)
			}
			for k, v := range tc.actions {
				if got[k] != v {
					t.Fatalf("%s: %s, want %s (%+v)", k, got[k], v, m.Changes)
				}
			}
			cfg, err := Load(home)
			if err != nil {
				t.Fatalf("the migrated file does not load: %v", err)
			}
			if !slices.Equal(cfg.Catalog.CodexHomes, tc.homes) || cfg.CompatTools != tc.want {
				t.Fatalf("migrated %+v %+v, want %v %+v", cfg.Catalog.CodexHomes, cfg.CompatTools, tc.homes, tc.want)
			}
			raw, _ := os.ReadFile(filepath.Join(home, FileName))
			if strings.Contains(string(raw), "[supervisor]") {
				t.Fatalf("the legacy table is still there:\n%s", raw)
			}
			if tc.name == "other keys survive" && (cfg.CodexBin != "/opt/codex" || len(cfg.Harnesses["shell"].Command) != 3) {
				t.Fatalf("other keys lost: %+v", cfg)
			}
		})
	}
}

// Scenario: S003-22 — the merged endpoints are reported as counts: a Codex home's path never
// appears in a migration report.
func TestS003_22_MigrationReportNamesNoPaths(t *testing.T) {
	home := t.TempDir()
	write(t, home, "[catalog]\ncodex_homes = [\"/secret/a\"]\n[supervisor]\nendpoints = [\"/secret/a\", \"/secret/b\"]\n")
	m, err := MigrateLegacy(home)
	if err != nil || len(m.Changes) != 1 {
		t.Fatalf("%+v %v", m, err)
	}
	if c := m.Changes[0]; c.Detail != "1 added, 1 already listed" || strings.Contains(c.Detail+c.From+c.To, "secret") {
		t.Fatalf("change %+v", c)
	}
}

// Scenario: S003-22 — a second migration finds nothing and leaves the file as it is, and the
// rewritten file is private (0600) even when the legacy one was not.
func TestS003_22_MigrationIsIdempotentAndWritesMode0600(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte("[supervisor]\nendpoints = [\"/codex/a\"]\nenabled = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MigrateLegacy(home); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode after migration: %v %v", st.Mode(), err)
	}
	first, _ := os.ReadFile(path)
	again, err := MigrateLegacy(home)
	if err != nil || again.Legacy || again.Applied || len(again.Changes) != 0 {
		t.Fatalf("second migration: %+v %v", again, err)
	}
	if second, _ := os.ReadFile(path); string(second) != string(first) {
		t.Fatalf("the second migration rewrote the file:\n%s\n---\n%s", first, second)
	}
	cfg, err := Load(home)
	if err != nil || !cfg.CompatTools.Enabled || !slices.Equal(cfg.Catalog.CodexHomes, []string{"/codex/a"}) {
		t.Fatalf("%+v %v", cfg, err)
	}
	// No file at all is nothing to migrate, and nothing is created.
	empty := t.TempDir()
	if m, err := MigrateLegacy(empty); err != nil || m.Legacy || m.Applied {
		t.Fatalf("missing file: %+v %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(empty, FileName)); !os.IsNotExist(err) {
		t.Fatalf("a config file was created: %v", err)
	}
}

// Scenario: S003-22 — after migration the runtime reads only the canonical shape: a file that
// still has [supervisor] is refused with an error that names `codexhost doctor --fix`.
func TestS003_22_LoadRefusesTheLegacyTableWithTheFix(t *testing.T) {
	home := t.TempDir()
	write(t, home, "[supervision]\nenabled = true\n[supervisor]\nenabled = true\n")
	_, err := Load(home)
	me := model.AsError(err)
	if !model.IsCode(err, model.CodeFailedPrecondition) || !strings.Contains(me.Hint, "codexhost doctor --fix") || !strings.Contains(me.Message, "[supervisor]") {
		t.Fatalf("want FAILED_PRECONDITION naming the fix, got %v", err)
	}
}

// Scenario: S003-22 — legacy values that cannot migrate stop the migration with the key at
// fault and leave the file unchanged.
func TestS003_22_InvalidLegacyValuesStopTheMigration(t *testing.T) {
	cases := map[string]string{
		"relative endpoint": "[supervisor]\nendpoints = [\"codex/a\"]\n",
		"cap out of range":  "[supervisor]\nmax_stored_sessions = 1001\n",
		"zero cap":          "[supervisor]\nmax_stored_sessions = 0\n",
		"unknown key":       "[supervisor]\nendpoint = [\"/codex/a\"]\n",
		"wrong type":        "[supervisor]\nenabled = \"yes\"\n",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, body)
			_, err := MigrateLegacy(home)
			me := model.AsError(err)
			if !model.IsCode(err, model.CodeInvalidArgument) || me.Hint == "" {
				t.Fatalf("want INVALID_ARGUMENT with a hint, got %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(home, FileName)); string(b) != body {
				t.Fatalf("the file changed:\n%s", b)
			}
		})
	}
}

// Scenario: S003-23 — max_stored_sessions defaults to 200 and accepts 1 to 1000 in config.toml.
func TestS003_23_SupervisionStoredCapBounds(t *testing.T) {
	if got := (CompatTools{}).StoredCap(); got != DefaultMaxStoredSessions {
		t.Fatalf("default cap %d", got)
	}
	for _, n := range []int{1, 1000} {
		home := t.TempDir()
		write(t, home, "[supervision]\nmax_stored_sessions = "+strconv.Itoa(n)+"\n")
		if c, err := Load(home); err != nil || c.CompatTools.StoredCap() != n {
			t.Fatalf("cap %d: %+v %v", n, c, err)
		}
	}
	for _, n := range []int{-1, 1001} {
		home := t.TempDir()
		write(t, home, "[supervision]\nmax_stored_sessions = "+strconv.Itoa(n)+"\n")
		if _, err := Load(home); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Fatalf("cap %d accepted: %v", n, err)
		}
	}
}
