package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/config"
)

// `client add --scope` stores the scopes and controls it is given; without them the client has
// none, and an unknown scope is refused with nothing added.
func TestClientAddScopes(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	setenv(t, "CODEXHOST_HOME", home)
	out, errOut, code := run(t, "client", "add", "ops", "--scope", config.ScopeRead, "--scope", config.ScopeWrite, "--allow-write-controls", "--json")
	var added struct{ Client, Token string }
	if code != 0 || json.Unmarshal([]byte(out), &added) != nil || added.Token == "" {
		t.Fatalf("client add: code %d %q %s", code, out, errOut)
	}
	// One JSON document without --json too; --text for people.
	var bot struct{ Client, Token string }
	if out, errOut, code = run(t, "client", "add", "bot"); code != 0 || json.Unmarshal([]byte(out), &bot) != nil || bot.Client != "bot" || bot.Token == "" {
		t.Fatalf("client add bot: %s %s", out, errOut)
	}
	if out, errOut, code = run(t, "client", "add", "person", "--text"); code != 0 || !strings.HasPrefix(out, "client person created") {
		t.Fatalf("client add person --text: %s %s", out, errOut)
	}
	if _, errOut, code = run(t, "client", "add", "odd", "--scope", "operator.all"); code != 1 || !strings.Contains(errOut, "INVALID_ARGUMENT") || !strings.Contains(errOut, config.ScopeAdmin) {
		t.Fatalf("unknown scope: code %d %s", code, errOut)
	}
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := cfg.MatchClient(added.Token); !ok || name != "ops" {
		t.Fatalf("token of ops: %q %v", name, ok)
	}
	ops := cfg.Grant("ops")
	if !slices.Equal(ops.Scopes, []string{config.ScopeRead, config.ScopeWrite}) || !ops.AllowWriteControls || ops.AllowRawTranscripts {
		t.Fatalf("ops %+v", ops)
	}
	if bot := cfg.Grant("bot"); len(bot.Scopes) != 0 || bot.AllowWriteControls || bot.AllowRawTranscripts {
		t.Fatalf("bot %+v", bot)
	}
	if _, ok := cfg.Clients["odd"]; ok {
		t.Fatal("a client with an unknown scope was added")
	}
}

// The home's operator needs no token and no entry in config.toml: its grant is every scope
// and both controls, and scopes narrowed by hand under [clients.local] are kept.
func TestOperatorNeedsNoToken(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := prepareOperatorHome(home); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(home); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("home: %v %v, want a 0700 directory", st, err)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("the home holds %v after the first operator command; no token file is made", ents)
	}
	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if g := cfg.Grant(config.OperatorClient); !slices.Equal(g.Scopes, config.OperatorScopes) || !g.AllowWriteControls || !g.AllowRawTranscripts {
		t.Fatalf("operator grant without an entry: %+v", g)
	}
	cfg.Clients = map[string]config.Client{config.OperatorClient: {Scopes: []string{config.ScopeRead}}}
	if g := cfg.Grant(config.OperatorClient); !slices.Equal(g.Scopes, []string{config.ScopeRead}) || g.AllowWriteControls {
		t.Fatalf("operator grant narrowed by hand: %+v", g)
	}
}
