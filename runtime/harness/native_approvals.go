package harness

import (
	"context"
	"encoding/json"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// The approval requests Codex sends a client when a thread's approval policy asks a person
// (wire notes §5). The runtime holds each until it is answered (runtime/approvals).
const (
	methodCommandApproval    = "item/commandExecution/requestApproval"
	methodFileChangeApproval = "item/fileChange/requestApproval"
	// methodElicitation is an MCP server's request for input, relayed by Codex; the App Server
	// also uses it to ask whether a tool call may run (wire notes §10).
	methodElicitation = "mcpServer/elicitation/request"
	// metaApprovalKind marks an elicitation that is Codex's approval of an MCP tool call.
	metaApprovalKind = "codex_approval_kind"
	mcpToolCallKind  = "mcp_tool_call"
)

// AskApproval waits for the decision on one request; it returns a decision Codex takes.
type AskApproval func(ctx context.Context, req model.Approval) string

// approvalParams are the fields of both requests that the runtime keeps: ids, the command
// and its cwd, the reason, the offered decisions. File contents are never read from them.
type approvalParams struct {
	ThreadID           string            `json:"threadId"`
	TurnID             string            `json:"turnId"`
	ItemID             string            `json:"itemId"`
	Command            string            `json:"command"`
	Cwd                string            `json:"cwd"`
	Reason             *string           `json:"reason"`
	AvailableDecisions []json.RawMessage `json:"availableDecisions"`
}

// handleApprovals answers c's approval requests through ask; without ask Codex's requests
// get an error, as before (a thread under approval policy never sends none).
func handleApprovals(c *appserver.Client, ask AskApproval) {
	if ask == nil {
		return
	}
	for method, kind := range map[string]string{methodCommandApproval: model.ApprovalCommand, methodFileChangeApproval: model.ApprovalFileChange} {
		c.Handle(method, func(ctx context.Context, raw json.RawMessage) (any, error) {
			var p approvalParams
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, err
			}
			req := model.Approval{ThreadID: p.ThreadID, TurnID: p.TurnID, ItemID: p.ItemID, Kind: kind, Command: p.Command, Cwd: p.Cwd,
				Decisions: offeredDecisions(p.AvailableDecisions)}
			if p.Reason != nil {
				req.Reason = *p.Reason
			}
			return map[string]string{"decision": ask(ctx, req)}, nil
		})
	}
	c.Handle(methodElicitation, func(ctx context.Context, raw json.RawMessage) (any, error) {
		return answerElicitation(ctx, raw, ask)
	})
}

// offeredDecisions are the plain decisions Codex lists (objects such as an exec-policy
// amendment are left out: codexhost does not offer them); decline and cancel are always
// taken, and a file change lists none, so those get the usual three.
func offeredDecisions(raw []json.RawMessage) []string {
	out := []string{}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return []string{model.DecisionAccept, model.DecisionDecline, model.DecisionCancel}
	}
	return out
}
