package approvals

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
)

// Access is what the approval routes ask of the threads capability: which threads a caller
// may see, and what acting on one needs.
type Access interface {
	VisibleTo(caller api.Caller, grant config.Grant) func(model.ThreadID) bool
	TouchPolicy(ctx context.Context, env route.Env, thread string) (*route.Policy, error)
}

// clientsOnly admits clients (the operator among them), never agents: a thread must not
// answer what Codex asks a person about it or its tree.
var clientsOnly = &route.Policy{Clients: &route.ClientRule{},
	AgentHint: "approvals are answered by a person or a client, never by an agent: ask the user"}

// Routes are approval.list, approval.take and approval.answer. A client sees and answers the
// approvals of its own principal's threads; another principal's need operator.write.
func Routes(r *Registry, access Access) []route.Route {
	escalate := func(ctx context.Context, env route.Env, id string) (*route.Policy, error) {
		a, ok := r.Get(id)
		if !ok {
			return nil, nil // the handler says it is unknown
		}
		return access.TouchPolicy(ctx, env, a.ThreadID)
	}
	return []route.Route{
		route.Spec[api.ApprovalListParams]{Method: api.MethodApprovalList, Policy: clientsOnly,
			Call: func(_ context.Context, env route.Env, p api.ApprovalListParams) (any, error) {
				visible := access.VisibleTo(env.Caller, env.Grant())
				list := r.List(func(thread string) bool { return visible == nil || visible(model.ThreadID(thread)) })
				if p.Pending {
					kept := list[:0]
					for _, a := range list {
						if a.State == model.ApprovalPending {
							kept = append(kept, a)
						}
					}
					list = kept
				}
				return api.ApprovalListResult{Approvals: list}, nil
			}}.Route(),
		route.Spec[api.ApprovalTakeParams]{Method: api.MethodApprovalTake, Policy: clientsOnly,
			Escalate: func(ctx context.Context, env route.Env, p api.ApprovalTakeParams) (*route.Policy, error) {
				return escalate(ctx, env, p.ID)
			},
			Call: func(_ context.Context, env route.Env, p api.ApprovalTakeParams) (any, error) {
				a, err := r.Take(p.ID, holderOf(env.Caller))
				return api.ApprovalResult{Approval: a}, err
			}}.Route(),
		route.Spec[api.ApprovalAnswerParams]{Method: api.MethodApprovalAnswer, Policy: clientsOnly,
			Escalate: func(ctx context.Context, env route.Env, p api.ApprovalAnswerParams) (*route.Policy, error) {
				return escalate(ctx, env, p.ID)
			},
			Call: func(_ context.Context, env route.Env, p api.ApprovalAnswerParams) (any, error) {
				a, err := r.Answer(p.ID, holderOf(env.Caller), p.Decision, p.Fence)
				return api.ApprovalResult{Approval: a}, err
			}}.Route(),
	}
}

// holderOf names the caller as a lease holder: the home's operator, or the client.
func holderOf(c api.Caller) string {
	if c.Client == config.OperatorClient {
		return HolderOperator
	}
	return c.Client
}
