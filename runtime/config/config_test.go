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
	token, err := c.AddClient("grok-bot", Grant{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddClient("grok-bot", Grant{}); !model.IsCode(err, model.CodeFailedPrecondition) {
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
	if _, err := c.AddClient("Bad Name", Grant{}); !model.IsCode(err, model.CodeInvalidArgument) {
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

// Scenario: S003-18 (scopes) — clients carry operator scopes and the two controls; a client
// without a `scopes` key has no scope, the home's operator client without one has them all,
// higher scopes grant the lower ones, and an unknown scope name is refused with a hint.
func TestClientScopesAndControls(t *testing.T) {
	hash := strings.Repeat("a", 64)
	home := t.TempDir()
	write(t, home, `
[clients.ops]
token_sha256 = "`+hash+`"
scopes = ["operator.write"]
allowWriteControls = true
[clients.reader]
token_sha256 = "`+hash+`"
scopes = ["operator.read"]
allowRawTranscripts = true
[clients.bot]
token_sha256 = "`+hash+`"
[clients.local]
token_sha256 = "`+hash+`"
`)
	c, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	ops, reader, bot, local := c.Grant("ops"), c.Grant("reader"), c.Grant("bot"), c.Grant(OperatorClient)
	if !ops.Has(ScopeRead) || !ops.Has(ScopeWrite) || ops.Has(ScopeAdmin) || !ops.AllowWriteControls || ops.AllowRawTranscripts {
		t.Fatalf("ops %+v", ops)
	}
	if !reader.Has(ScopeRead) || reader.Has(ScopeWrite) || !reader.AllowRawTranscripts || reader.AllowWriteControls {
		t.Fatalf("reader %+v", reader)
	}
	if bot.Has(ScopeRead) || bot.AllowWriteControls || bot.AllowRawTranscripts {
		t.Fatalf("a client without scopes must hold none: %+v", bot)
	}
	if !local.Has(ScopeAdmin) || !local.AllowWriteControls || !local.AllowRawTranscripts {
		t.Fatalf("the operator client written before scopes: %+v", local)
	}
	if g := c.Grant("nobody"); g.Has(ScopeRead) || g.AllowWriteControls {
		t.Fatalf("unknown client %+v", g)
	}
	if (Grant{Scopes: []string{"operator.root"}}).Has("operator.root") {
		t.Fatal("an unknown scope was granted")
	}

	write(t, home, "[clients.ops]\ntoken_sha256 = \""+hash+"\"\nscopes = [\"operator.read\", \"operator.delete\"]\n")
	_, err = Load(home)
	if !model.IsCode(err, model.CodeInvalidArgument) || !strings.Contains(err.Error(), `"operator.delete"`) || !strings.Contains(model.AsError(err).Hint, ScopeAdmin) {
		t.Fatalf("unknown scope: %v", err)
	}
}

func TestAddClientStoresItsGrant(t *testing.T) {
	home := t.TempDir()
	c := &Config{}
	if _, err := c.AddClient("ops", Grant{Scopes: []string{ScopeRead, ScopeWrite, ScopeRead}, AllowWriteControls: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddClient("bot", Grant{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddClient("odd", Grant{Scopes: []string{"admin"}}); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("unknown scope: %v", err)
	}
	if _, ok := c.Clients["odd"]; ok {
		t.Fatal("a refused client was added")
	}
	if err := Save(home, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, FileName))
	if !strings.Contains(string(raw), `scopes = ["operator.read", "operator.write"]`) || !strings.Contains(string(raw), "allowWriteControls = true") || strings.Contains(string(raw), "allowRawTranscripts") {
		t.Fatalf("config:\n%s", raw)
	}
	back, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if g := back.Grant("ops"); !g.Has(ScopeWrite) || g.Has(ScopeAdmin) || !g.AllowWriteControls {
		t.Fatalf("ops %+v", g)
	}
	if g := back.Grant("bot"); len(g.Scopes) != 0 || g.AllowWriteControls {
		t.Fatalf("bot %+v", g)
	}
}

// A config.toml rewritten by a command (client add, node allow) states no limit its owner
// never set: an unset number is 0 in memory, its default at run time, and written out as
// `max_active_threads = 0` it read as a limit of none.
func TestSaveLeavesUnsetLimitsOut(t *testing.T) {
	home := t.TempDir()
	c := &Config{}
	if _, err := c.AddClient("bot", Grant{}); err != nil {
		t.Fatal(err)
	}
	if err := Save(home, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, FileName))
	for _, key := range []string{"max_active_threads", "workers", "max_stored_sessions"} {
		if strings.Contains(string(raw), key) {
			t.Errorf("config.toml names %s, which nobody set:\n%s", key, raw)
		}
	}
}
