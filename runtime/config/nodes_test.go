package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: S003-18 — the gateway's node command policy: list and turns unless denied,
// resume only when allowed explicitly, and a deny always wins.
func TestS003_18_NodeCommandPolicyDenyWinsAndResumeNeedsAllow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		p           NodeCommandPolicy
		list, turns bool
		resume      bool
	}{
		{"default", NodeCommandPolicy{}, true, true, false},
		{"resume allowed", NodeCommandPolicy{Allow: []string{api.NodeCmdSessionResume}}, true, true, true},
		{"resume allowed and denied", NodeCommandPolicy{Allow: []string{api.NodeCmdSessionResume}, Deny: []string{api.NodeCmdSessionResume}}, true, true, false},
		{"list denied", NodeCommandPolicy{Deny: []string{api.NodeCmdThreadsList}}, false, true, false},
	} {
		if tc.p.Allows(api.NodeCmdThreadsList) != tc.list || tc.p.Allows(api.NodeCmdTurnsList) != tc.turns || tc.p.Allows(api.NodeCmdSessionResume) != tc.resume {
			t.Errorf("%s: list %v turns %v resume %v", tc.name, tc.p.Allows(api.NodeCmdThreadsList), tc.p.Allows(api.NodeCmdTurnsList), tc.p.Allows(api.NodeCmdSessionResume))
		}
		if tc.p.Allows("codex.something.else") {
			t.Errorf("%s: an unknown command is allowed", tc.name)
		}
	}
}

func TestNodesConfigRoundTripAndValidation(t *testing.T) {
	home := t.TempDir()
	c := &Config{}
	tok, err := c.AddNodeClient("gw")
	if err != nil || len(tok) < 32 || !c.Clients["gw"].Node || len(c.Clients["gw"].Scopes) != 0 {
		t.Fatalf("node client %+v, %v", c.Clients["gw"], err)
	}
	if err := c.PairNode("lab", "127.0.0.1:7401", tok+"\n"); err != nil {
		t.Fatal(err)
	}
	c.Gateway.Nodes.Commands.Allow = []string{api.NodeCmdSessionResume}
	c.Node.Commands = []string{api.NodeCmdTurnsList, api.NodeCmdThreadsList}
	if err := Save(home, c); err != nil {
		t.Fatal(err)
	}
	back, err := Load(home)
	if err != nil {
		t.Fatal(err)
	}
	if back.Nodes["lab"].Token != tok || back.Nodes["lab"].Address != "127.0.0.1:7401" || !back.Gateway.Nodes.Commands.Allows(api.NodeCmdSessionResume) {
		t.Fatalf("round trip %+v", back)
	}
	// Advertised in protocol order, whatever the config's order.
	if got := back.NodeAdvertised(); strings.Join(got, ",") != api.NodeCmdThreadsList+","+api.NodeCmdTurnsList {
		t.Fatalf("advertised %v", got)
	}
	if got := (&Config{}).NodeAdvertised(); len(got) != 3 {
		t.Fatalf("default advertised %v", got)
	}

	for _, bad := range []struct{ name, toml string }{
		{"unknown command", "[node]\ncommands = [\"codex.nope\"]\n"},
		{"unknown allow", "[gateway.nodes.commands]\nallow = [\"codex.nope\"]\n"},
		{"no port", "[nodes.lab]\naddress = \"127.0.0.1\"\ntoken = \"" + tok + "\"\n"},
		{"short token", "[nodes.lab]\naddress = \"127.0.0.1:1\"\ntoken = \"abc\"\n"},
		{"bad name", "[nodes.Lab]\naddress = \"127.0.0.1:1\"\ntoken = \"" + tok + "\"\n"},
		{"node client with scopes", "[clients.gw]\ntoken_sha256 = \"" + HashToken(tok) + "\"\nnode = true\nscopes = [\"operator.read\"]\n"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(bad.toml), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		if !model.IsCode(err, model.CodeInvalidArgument) {
			t.Errorf("%s: want INVALID_ARGUMENT, got %v", bad.name, err)
		} else if strings.Contains(err.Error(), tok) {
			t.Errorf("%s: the error shows the token", bad.name)
		}
	}
	if err := (&Config{}).PairNode("lab", "nowhere", tok); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("pair with a bad address: %v", err)
	}
}
