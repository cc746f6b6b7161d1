package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

func TestLoadMissingFileIsEmpty(t *testing.T) {
	c, err := Load(t.TempDir())
	if err != nil || len(c.Harnesses) != 0 || c.DedupeWindow() != DefaultDedupeWindow {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestLoadHarnessesAndWindow(t *testing.T) {
	home := t.TempDir()
	write(t, home, `
codex_bin = "/opt/codex"
[delegate]
dedupe_window = "45s"
[harnesses.shell]
command = ["sh", "-c", "cat"]
cwd = "/tmp"
timeout = "10m"
env = { A = "1" }
`)
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	h := c.Harnesses["shell"]
	if c.CodexBin != "/opt/codex" || c.DedupeWindow() != 45*time.Second || h.Timeout.Duration != 10*time.Minute || h.Env["A"] != "1" || strings.Join(h.Command, " ") != "sh -c cat" {
		t.Fatalf("%+v", c)
	}
}

func TestLoadRejectsBadConfigWithHints(t *testing.T) {
	cases := map[string]string{
		"syntax":      `[harnesses`,
		"unknown key": `colour = "red"`,
		"no command":  "[harnesses.x]\ncwd = \"/\"",
		"reserved":    "[harnesses.codex]\ncommand = [\"x\"]",
		"bad timeout": "[harnesses.x]\ncommand = [\"x\"]\ntimeout = \"soon\"",
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, body)
			_, err := Load(home)
			if !model.IsCode(err, model.CodeInvalidArgument) || model.AsError(err).Hint == "" {
				t.Fatalf("want INVALID_ARGUMENT with a hint, got %v", err)
			}
		})
	}
}

func TestClientTokensAreStoredHashedAndMatched(t *testing.T) {
	home := t.TempDir()
	c := &Config{}
	token, err := c.AddClient("grok-bot")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddClient("grok-bot"); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("duplicate client: %v", err)
	}
	if err := Save(home, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, FileName))
	if strings.Contains(string(raw), token) || !strings.Contains(string(raw), HashToken(token)) {
		t.Fatalf("config must hold only the token hash:\n%s", raw)
	}
	st, _ := os.Stat(filepath.Join(home, FileName))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", st.Mode().Perm())
	}
	back, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := back.MatchClient(token); !ok || name != "grok-bot" {
		t.Fatalf("token not matched: %q %v", name, ok)
	}
	if _, ok := back.MatchClient(token + "x"); ok {
		t.Fatal("a wrong token matched")
	}
	if _, err := c.AddClient("Bad Name"); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("bad name: %v", err)
	}
}

func write(t *testing.T, home, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCatalogCodexHomes(t *testing.T) {
	home := t.TempDir()
	write(t, home, "[catalog]\ncodex_homes = [\"/srv/codex-a\", \"/srv/codex-b/\"]\n")
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Catalog.CodexHomes, ",") != "/srv/codex-a,/srv/codex-b/" {
		t.Fatalf("codex_homes %q", c.Catalog.CodexHomes)
	}
}

// A bad entry is named by its position: the path of a Codex home never appears in an error.
func TestLoadRejectsBadCatalogHomesWithoutEchoingPaths(t *testing.T) {
	cases := map[string]string{
		"relative":   `codex_homes = ["secret-rel/codex"]`,
		"empty":      `codex_homes = [""]`,
		"duplicate":  `codex_homes = ["/secret/codex", "/secret/codex/"]`,
		"not a list": `codex_homes = "/secret/codex"`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			write(t, home, "[catalog]\n"+body+"\n")
			_, err := Load(home)
			if !model.IsCode(err, model.CodeInvalidArgument) || model.AsError(err).Hint == "" {
				t.Fatalf("want INVALID_ARGUMENT with a hint, got %v", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("the error echoes the path: %v", err)
			}
		})
	}
	many := make([]string, MaxCatalogHomes+1)
	for i := range many {
		many[i] = "/c/" + strings.Repeat("x", i+1)
	}
	c := &Config{Catalog: Catalog{CodexHomes: many}}
	if err := c.Validate(); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("too many homes: %v", err)
	}
}
