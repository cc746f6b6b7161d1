package fakemodel

import (
	"strings"
	"testing"
)

// MCPToolCall calls the tool only inside its server's namespace, named as Codex names it.
func TestMCPToolCallNeedsTheServersNamespace(t *testing.T) {
	offered := map[string]any{"tools": []any{
		map[string]any{"type": "function", "name": "handoff_create"},
		map[string]any{"type": "namespace", "name": "mcp__codexhost", "tools": []any{map[string]any{"type": "function", "name": "handoff_create"}}},
	}}
	b := MCPToolCall("codexhost", "handoff.create", `{"title":"t"}`)
	if ns, ok := b.offeredIn(offered); !ok || ns != "mcp__codexhost" || b.tool != "handoff_create" {
		t.Fatalf("offered in %q %v as %s", ns, ok, b.tool)
	}
	if step := callStep(MCPToolCall("other", "handoff.create", ""), 1, offered); step.mode != modeHTTPError || !strings.Contains(step.text, "mcp__other.handoff_create") {
		t.Fatalf("another server's namespace: %+v", step)
	}
}

// MCPToolCallFrom calls its tool on the follow-up of an earlier call, with arguments made from
// that call's output, and refuses a request that follows no call.
func TestMCPToolCallFromChainsOnThePreviousOutput(t *testing.T) {
	tools := []any{map[string]any{"type": "namespace", "name": "mcp__codexhost", "tools": []any{map[string]any{"type": "function", "name": "thread_wait"}}}}
	followUp := map[string]any{"tools": tools, "input": []any{map[string]any{"type": "function_call_output", "output": "id-42"}}}
	b := MCPToolCallFrom("codexhost", "thread.wait", func(prev string) string { return `{"thread":"` + prev + `"}` })
	step := callStep(b, 2, followUp)
	if step.mode != modeCall || step.args != `{"thread":"id-42"}` {
		t.Fatalf("follow-up: %+v", step)
	}
	if step := callStep(b, 1, map[string]any{"tools": tools}); step.mode != modeHTTPError {
		t.Fatalf("no previous output: %+v", step)
	}
}
