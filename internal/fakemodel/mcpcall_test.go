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
