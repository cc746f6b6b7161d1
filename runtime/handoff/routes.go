package handoff

import (
	"context"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
)

// Routes are handoff.* and task.*: agents and named clients (no operator scope
// needed) create, list, show and start within the [handoff] policy, read status and results
// and cancel; confirming a high-risk task (task.confirm, or task.start with confirmHighRisk)
// is for the home's operator client only. skill.* (route, read, bundle over the approved
// skill roots) are open like handoff.create, which routes the same skills.
func (c *Capability) Routes() []route.Route {
	return []route.Route{
		serve(c, api.MethodHandoffCreate, route.Everyone, nil, byCaller((*Service).Create)),
		serve(c, api.MethodHandoffList, route.Everyone, nil, ownedBy((*Service).List)),
		serve(c, api.MethodHandoffShow, route.Everyone, nil, byCaller((*Service).Show)),
		serve(c, api.MethodTaskStart, route.Everyone, c.taskStartPolicy, byCaller((*Service).Start)),
		serve(c, api.MethodTaskStatus, route.Everyone, nil, ownedBy((*Service).Status)),
		serve(c, api.MethodTaskResult, route.Everyone, nil, byCaller((*Service).Result)),
		serve(c, api.MethodTaskCancel, route.Everyone, c.taskCancelPolicy, byCaller((*Service).Cancel)),
		serve(c, api.MethodTaskConfirm, confirmPolicy, nil, byCaller((*Service).Confirm)),
		serve(c, api.MethodSkillRoute, route.Everyone, nil, byCaller((*Service).SkillRoute)),
		serve(c, api.MethodSkillRead, route.Everyone, nil, byCaller((*Service).SkillRead)),
		serve(c, api.MethodSkillBundle, route.Everyone, nil, byCaller((*Service).SkillBundle)),
	}
}

// ownedBy narrows a listing to the caller's own handoffs or tasks, as thread list does: a
// client without operator.read learns only of what it made (the handler gets the owner to
// keep; "" keeps all). An id given to task status or handoff show is shown to anyone.
func ownedBy[P, R any](fn func(*Service, context.Context, api.Caller, P, string) (R, error)) func(*Service, context.Context, route.Env, P) (R, error) {
	return func(svc *Service, ctx context.Context, env route.Env, p P) (R, error) {
		owner := ""
		if env.Caller.Kind == api.CallerClient && !env.Grant().Has(config.ScopeRead) {
			owner = CallerName(env.Caller)
		}
		return fn(svc, ctx, env.Caller, p, owner)
	}
}

// otherOwnerPolicy: cancelling a task another client started, as for its thread.
var otherOwnerPolicy = &route.Policy{Agents: &route.AgentRule{}, Clients: &route.ClientRule{Scope: config.ScopeWrite}}

// taskCancelPolicy: a client cancels its own tasks; another's need operator.write.
func (c *Capability) taskCancelPolicy(_ context.Context, env route.Env, p api.TaskCancelParams) (*route.Policy, error) {
	if env.Caller.Kind != api.CallerClient {
		return nil, nil
	}
	svc, err := c.Service()
	if err != nil {
		return nil, err
	}
	owner, err := svc.TaskOwner(p.TaskID)
	if err != nil || owner == CallerName(env.Caller) {
		return nil, nil // the handler names an unknown task
	}
	return otherOwnerPolicy, nil
}

// confirmPolicy: the operator confirms a high-risk task at the keyboard.
var confirmPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	Hint: "a high-risk task is confirmed by the operator: `codexhost task confirm ID` or `codexhost task start --confirm-high-risk`"}

// taskStartPolicy: confirming high risk is the operator's; starting a handoff another client
// created is naming another principal's work, so it needs operator.write (agents start only
// what agents made).
func (c *Capability) taskStartPolicy(_ context.Context, env route.Env, p api.TaskStartParams) (*route.Policy, error) {
	if p.ConfirmHighRisk {
		return confirmPolicy, nil
	}
	if p.HandoffID == "" || (env.Caller.Kind == api.CallerRuntime && env.Caller.Thread == "" && !env.Caller.Unbound) {
		return nil, nil
	}
	svc, err := c.Service()
	if err != nil {
		return nil, err
	}
	owner, err := svc.HandoffOwner(p.HandoffID)
	if err != nil || owner == CallerName(env.Caller) {
		return nil, nil // the handler names an unknown handoff
	}
	return otherHandoffPolicy, nil
}

// otherHandoffPolicy: a handoff someone else created.
var otherHandoffPolicy = &route.Policy{Clients: &route.ClientRule{Scope: config.ScopeWrite},
	AgentHint: "an agent starts only the handoffs made from inside codexhost", Hint: "start your own handoff (`codexhost handoff create`); another client's needs operator.write"}

// serve serves one method of the handoff service, opened on first use.
func serve[P, R any](c *Capability, method string, pol *route.Policy, escalate func(context.Context, route.Env, P) (*route.Policy, error),
	fn func(*Service, context.Context, route.Env, P) (R, error)) route.Route {
	return route.Spec[P]{Method: method, Policy: pol, Escalate: escalate,
		Call: func(ctx context.Context, env route.Env, p P) (any, error) {
			svc, err := c.Service()
			if err != nil {
				return nil, err
			}
			return fn(svc, ctx, env, p)
		}}.Route()
}

// byCaller adapts a service method that needs only the caller.
func byCaller[P, R any](fn func(*Service, context.Context, api.Caller, P) (R, error)) func(*Service, context.Context, route.Env, P) (R, error) {
	return func(svc *Service, ctx context.Context, env route.Env, p P) (R, error) {
		return fn(svc, ctx, env.Caller, p)
	}
}
