package mcp

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// approvalTools list and answer what native threads ask a person to approve, as the MCP
// client's own client (its principal's threads; another's need operator.write). Agents are
// refused by the runtime: a thread never answers approvals.
func approvalTools() []Definition {
	return []Definition{
		tool("approvals.list", "List the approval requests of native threads that the caller may see: pending first (command, cwd, reason, the decisions offered, the deadline after which it is declined), then the recently decided. Read-only.",
			true, false,
			object(boolean("pending", "only the requests that wait for an answer", false)),
			func(ctx context.Context, rt Runtime, a api.ApprovalListParams) (api.ApprovalListResult, error) {
				return api.ApprovalList.Call(ctx, rt, a)
			}),
		tool("approvals.answer", "Answer an approval request; Codex gets the decision at once. Without fence it takes the request's lease and answers in one step (refused while another client holds the lease); with fence it answers under that lease and is refused once the lease has moved on.",
			false, true,
			object(str("id", "the approval's id (from approvals.list)", 1, 64).req(),
				enum("decision", "accept, acceptForSession (when offered), decline, or cancel (interrupts the turn)", "", model.DecisionAccept, model.DecisionAcceptForSession, model.DecisionDecline, model.DecisionCancel).req(),
				integer("fence", "answer under this lease fence", 1, 1<<30, 1)),
			func(ctx context.Context, rt Runtime, a api.ApprovalAnswerParams) (api.ApprovalResult, error) {
				return api.ApprovalAnswer.Call(ctx, rt, a)
			}),
	}
}
