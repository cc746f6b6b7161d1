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
	if _, errOut, code = run(t, "client", "add", "bot"); code != 0 {
		t.Fatalf("client add bot: %s", errOut)
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

// The home's operator client is registered with every scope and both controls, and one
// written before scopes existed gets them on the next operator command.
func TestLocalOperatorClientHasEveryScope(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if _, err := localOperatorToken(home); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(home, config.FileName))
	if !strings.Contains(string(raw), `scopes = ["operator.read", "operator.write", "operator.admin"]`) || !strings.Contains(string(raw), "allowWriteControls = true") {
		t.Fatalf("config after the first operator command:\n%s", raw)
	}

	cfg, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	cl := cfg.Clients[config.OperatorClient]
	cfg.Clients[config.OperatorClient] = config.Client{TokenSHA256: cl.TokenSHA256}
	if err := config.Save(home, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := localOperatorToken(home); err != nil {
		t.Fatal(err)
	}
	back, err := config.Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Clients[config.OperatorClient]; !slices.Equal(got.Scopes, config.OperatorScopes) || !got.AllowWriteControls || got.TokenSHA256 != cl.TokenSHA256 {
		t.Fatalf("operator client written before scopes: %+v", got)
	}
}
