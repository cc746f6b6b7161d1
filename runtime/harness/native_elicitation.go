package harness

import (
	"context"
	"encoding/json"

	"github.com/codexhost/codexhost/model"
)

// elicitationParams are the fields of an MCP elicitation the runtime keeps: who asks, in which
// turn, and the message Codex shows. The form's schema and any content are never kept.
type elicitationParams struct {
	ThreadID   string                     `json:"threadId"`
	TurnID     *string                    `json:"turnId"`
	ServerName string                     `json:"serverName"`
	Message    string                     `json:"message"`
	Meta       map[string]json.RawMessage `json:"_meta"`
}

// answerElicitation holds Codex's approval of an MCP tool call like any other approval and
// maps the decision onto the elicitation's action. An elicitation that is not an approval asks
// for form input no person is there to give here: it is declined, as a client without
// elicitation support would.
func answerElicitation(ctx context.Context, raw json.RawMessage, ask AskApproval) (any, error) {
	var p elicitationParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	var kind string
	if k, ok := p.Meta[metaApprovalKind]; ok {
		_ = json.Unmarshal(k, &kind)
	}
	if kind != mcpToolCallKind {
		return map[string]any{"action": model.DecisionDecline}, nil
	}
	req := model.Approval{ThreadID: p.ThreadID, Kind: model.ApprovalMCPToolCall, Server: p.ServerName, Reason: p.Message,
		Decisions: []string{model.DecisionAccept, model.DecisionDecline, model.DecisionCancel}}
	if p.TurnID != nil {
		req.TurnID = *p.TurnID
	}
	return map[string]any{"action": elicitationAction(ask(ctx, req))}, nil
}

// elicitationAction is the elicitation's action for a decision: accept for the session has no
// counterpart there and is a plain accept; an unknown decision declines.
func elicitationAction(decision string) string {
	switch decision {
	case model.DecisionAccept, model.DecisionAcceptForSession:
		return model.DecisionAccept
	case model.DecisionCancel:
		return model.DecisionCancel
	}
	return model.DecisionDecline
}
