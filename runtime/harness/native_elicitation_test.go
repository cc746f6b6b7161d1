package harness

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Issue 28 (MCP tool-call elicitations): Codex's question whether an MCP tool may run (wire
// notes §10: _meta.codex_approval_kind "mcp_tool_call") is held as an approval naming the
// server, its message as the reason, and each decision becomes the elicitation's action. Any
// other elicitation asks for a form nobody here fills: it is declined without asking anyone.
func TestMCPToolCallElicitationsAreHeldAsApprovals(t *testing.T) {
	const toolCall = `{"threadId":"th","turnId":"tu","serverName":"docs","mode":"form","message":"Allow docs to run search?","requestedSchema":{"type":"object","properties":{}},"_meta":{"codex_approval_kind":"mcp_tool_call"}}`
	for decision, action := range map[string]string{model.DecisionAccept: "accept", model.DecisionAcceptForSession: "accept",
		model.DecisionDecline: "decline", model.DecisionCancel: "cancel"} {
		var asked []model.Approval
		ask := func(_ context.Context, req model.Approval) string { asked = append(asked, req); return decision }
		res, err := answerElicitation(context.Background(), json.RawMessage(toolCall), ask)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.(map[string]any)["action"]; got != action {
			t.Errorf("decision %s: action %v, want %s", decision, got, action)
		}
		if len(asked) != 1 || asked[0].Kind != model.ApprovalMCPToolCall || asked[0].Server != "docs" || asked[0].ThreadID != "th" ||
			asked[0].TurnID != "tu" || asked[0].Reason != "Allow docs to run search?" || len(asked[0].Decisions) != 3 {
			t.Fatalf("asked %+v", asked)
		}
	}
	const form = `{"threadId":"th","serverName":"docs","mode":"form","message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`
	res, err := answerElicitation(context.Background(), json.RawMessage(form), func(context.Context, model.Approval) string {
		t.Fatal("a form elicitation was asked of a person")
		return ""
	})
	if err != nil || res.(map[string]any)["action"] != "decline" {
		t.Fatalf("a form elicitation: %v %v", res, err)
	}
}
