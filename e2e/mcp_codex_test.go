package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/mcp"
)

// codexMCPConfig registers `codexhost mcp` with Codex as [mcp_servers.codexhost], acting as
// the client whose token it gets. Codex turns dots into underscores, so the dotted names are
// disabled (their aliases stay); handoff_create is approved so that it runs under
// approval_policy = "never".
func codexMCPConfig(home, token string) string {
	var dotted []string
	for _, d := range mcp.Definitions() {
		if d.Alias != "" {
			dotted = append(dotted, d.Name)
		}
	}
	return "\n[mcp_servers.codexhost]\ncommand = " + tomlString(bin) + "\nargs = [\"mcp\"]\n" +
		"env = { CODEXHOST_HOME = " + tomlString(home) + ", CODEXHOST_CLIENT_TOKEN = " + tomlString(token) + " }\n" +
		"disabled_tools = " + tomlArray(dotted) + "\n" +
		"[mcp_servers.codexhost.tools.handoff_create]\napproval_mode = \"approve\"\n"
}

// Scenario: S004-01 — Codex itself as the MCP client: a real Codex thread whose model calls
// handoff_create in the mcp__codexhost namespace creates the handoff, with the MCP server's
// client as its origin.
func TestS004_01_CodexCallsHandoffCreateThroughMCP(t *testing.T) {
	t.Parallel()
	h, root, token := mcpHost(t, "")
	f, err := os.OpenFile(filepath.Join(h.codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	mcpToken := h.addClient("codex-mcp")
	if _, err := f.WriteString(codexMCPConfig(h.home, mcpToken)); err != nil {
		t.Fatal(err)
	}
	f.Close()

	dir := mkProject(t, root, "from-codex")
	args, _ := json.Marshal(demoHandoffArgs(dir))
	h.fake.Enqueue(fakemodel.MCPToolCall("codexhost", "handoff.create", string(args)))
	// The user's own Codex, not one codexhost runs: everything below the runtime is an agent,
	// and a client token shown from there is refused (skeleton_test.go).
	_ = token
	codexfixture.StoredThread(t, h.codexHome, "", "create the handoff")

	reqs := h.fake.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model was asked %d times", len(reqs))
	}
	out, ok := reqs[1].ToolOutput()
	if !ok || !strings.Contains(out, "handoff_") {
		t.Fatalf("the tool's output reached the model as %q (%v); first request mode %s", out, ok, reqs[0].Mode)
	}
	// Listed as the MCP server's client: a client lists the handoffs it made.
	var list api.HandoffListResult
	h.asClient(mcpToken, "handoff", "list", "--json").decode(t, &list)
	if len(list.Handoffs) != 1 || list.Handoffs[0].Dir != dir {
		t.Fatalf("handoffs %+v", list)
	}
	// The thread is bot's; the handoff its model made through MCP is the MCP server's client's.
	if list.Handoffs[0].CreatedBy != "client:codex-mcp" {
		t.Fatalf("handoff origin %q", list.Handoffs[0].CreatedBy)
	}
	if !strings.Contains(out, list.Handoffs[0].HandoffID) {
		t.Fatalf("output %q does not name %s", out, list.Handoffs[0].HandoffID)
	}
}
