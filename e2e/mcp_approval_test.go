package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/mcp"
)

// readmeCodexConfig is the [mcp_servers.codexhost] block of the README's "Registering with
// Codex", with this test's binary, home and client token put in.
func readmeCodexConfig(t *testing.T, home, token string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "### Registering with Codex")
	_, rest, ok2 := strings.Cut(rest, "```toml\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no toml block under \"Registering with Codex\"")
	}
	command := regexp.MustCompile(`(?m)^command = .*$`)
	env := regexp.MustCompile(`(?m)^env = .*$`)
	if !command.MatchString(block) || !env.MatchString(block) {
		t.Fatalf("the README's block has no command or env line:\n%s", block)
	}
	block = command.ReplaceAllLiteralString(block, "command = "+tomlString(bin))
	block = env.ReplaceAllLiteralString(block, "env = { CODEXHOST_HOME = "+tomlString(home)+", CODEXHOST_CLIENT_TOKEN = "+tomlString(token)+" }")
	return "\n" + block
}

// Scenario: S004-01 — what Codex does with codexhost's tools under approval_policy = "never"
// and the README's config, in real turns: a tool whose destructiveHint is true runs only when
// the config approves it (approval_mode = "approve"); every other tool runs without approval,
// being read-only or declaring destructiveHint false with openWorldHint false. So the README's
// config lets the model call handoff_create and codex_session_send (not approved, not
// destructive) and the approved codex_cancel, and Codex refuses codex_session_interrupt and
// thread_cancel (destructive, not approved) without calling codexhost.
func TestS004_01_CodexApprovalOfMCPToolsUnderNever(t *testing.T) {
	t.Parallel()
	h, root, _ := mcpHost(t, "")
	mcpToken := h.addClient("codex-mcp")
	conf := readmeCodexConfig(t, h.home, mcpToken)
	// The README disables every dotted name, so each alias is offered once.
	for _, d := range mcp.Definitions() {
		if d.Alias != "" && !strings.Contains(conf, `"`+d.Name+`"`) {
			t.Fatalf("the README's disabled_tools lacks %s", d.Name)
		}
	}
	f, err := os.OpenFile(filepath.Join(h.codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(conf); err != nil {
		t.Fatal(err)
	}
	f.Close()

	dir := mkProject(t, root, "approvals")
	handoffArgs, _ := json.Marshal(demoHandoffArgs(dir))
	const missingThread = "019a0000-0000-7000-8000-00000000abcd"
	calls := []struct {
		tool, args string
		called     bool
	}{
		{"handoff_create", string(handoffArgs), true},                                        // approved
		{"codex_status", `{}`, true},                                                         // readOnlyHint
		{"codex_session_send", `{"thread":"` + missingThread + `","message":"steer"}`, true}, // destructiveHint false, not approved
		{"codex_cancel", `{"taskId":"` + missingThread + `","confirm":true}`, true},          // destructiveHint true, approved
		{"codex_session_interrupt", `{"thread":"` + missingThread + `"}`, false},             // destructiveHint true, not approved
		{"thread_cancel", `{"thread":"` + missingThread + `"}`, false},                       // destructiveHint true, not approved
	}
	texts := make([]string, len(calls))
	for i, c := range calls {
		h.fake.Enqueue(fakemodel.MCPToolCall("codexhost", c.tool, c.args), fakemodel.Reply("done"))
		texts[i] = "call " + c.tool
	}
	codexfixture.StoredThread(t, h.codexHome, "", texts...)

	// Each call's follow-up request carries what Codex gave the model for it: codexhost's
	// answer (a result, or one of its error codes) when the call reached codexhost, Codex's
	// refusal when it did not.
	var outputs []string
	for _, r := range h.fake.Requests() {
		if out, ok := r.ToolOutput(); ok {
			outputs = append(outputs, out)
		}
	}
	if len(outputs) != len(calls) {
		t.Fatalf("%d tool outputs for %d calls: %q", len(outputs), len(calls), outputs)
	}
	codexhostAnswer := regexp.MustCompile(`handoff_|"tasks"|THREAD_NOT_FOUND|PERMISSION_DENIED|FAILED_PRECONDITION|INVALID_ARGUMENT|NODE_|RUNTIME_UNREACHABLE`)
	var called, refused []string
	for i, c := range calls {
		reached := codexhostAnswer.MatchString(outputs[i])
		if reached {
			called = append(called, c.tool)
		} else {
			refused = append(refused, c.tool)
		}
		if reached != c.called || (!reached && !strings.Contains(outputs[i], "requires approval")) {
			t.Errorf("%s: reached codexhost %v, want %v; the model got %q", c.tool, reached, c.called, outputs[i])
		}
	}
	t.Logf("called %v, refused %v", called, refused)
	if !slices.Contains(called, "codex_session_send") || !slices.Contains(refused, "codex_session_interrupt") {
		t.Fatalf("called %v, refused %v", called, refused)
	}
}
