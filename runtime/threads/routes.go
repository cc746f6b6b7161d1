package threads

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/route"
)

// clientOnlyPolicy: a client's own event log, read through its own token.
var clientOnlyPolicy = &route.Policy{Clients: &route.ClientRule{},
	AgentHint: "connect with the client's token (--client-token)"}

// Routes are the thread methods and harness.list. Reading and waiting on any id is open to
// every caller (a user-given id is the authorisation to observe a thread); sending and
// cancelling follow the thread's principal (principal.go), listing shows a client its own.
func (s *Service) Routes() []route.Route {
	return []route.Route{
		route.Spec[struct{}]{Method: api.MethodHarnessList, Policy: route.Everyone,
			Call: func(context.Context, route.Env, struct{}) (any, error) { return s.HarnessList(), nil }}.Route(),
		route.Spec[api.HarnessInspectParams]{Method: api.MethodHarnessInspect, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.HarnessInspectParams) (any, error) {
				return s.HarnessInspect(ctx, p)
			}}.Route(),
		route.Spec[api.DelegateStartParams]{Method: api.MethodDelegateStart, Policy: route.Everyone, Escalate: s.delegatePolicy,
			Call: func(ctx context.Context, env route.Env, p api.DelegateStartParams) (any, error) {
				p.Caller = agentHint(env.Caller, p.Caller)
				return s.Delegate(ctx, env.Caller, p)
			}}.Route(),
		route.Spec[api.ThreadReadParams]{Method: api.MethodThreadRead, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadReadParams) (any, error) { return s.Read(ctx, p) }}.Route(),
		route.Spec[api.ThreadWaitParams]{Method: api.MethodThreadWait, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadWaitParams) (any, error) { return s.Wait(ctx, p) }}.Route(),
		route.Spec[api.ThreadListParams]{Method: api.MethodThreadList, Policy: route.Everyone,
			Call: func(ctx context.Context, env route.Env, p api.ThreadListParams) (any, error) {
				return s.List(ctx, env.Caller, p, s.listVisible(env))
			}}.Route(),
		route.Spec[api.ThreadSendParams]{Method: api.MethodThreadSend, Policy: route.Everyone, Escalate: s.sendPolicy,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadSendParams) (any, error) { return s.Send(ctx, p) }}.Route(),
		route.Spec[api.ThreadCancelParams]{Method: api.MethodThreadCancel, Policy: route.Everyone, Escalate: s.cancelPolicy,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadCancelParams) (any, error) { return s.Cancel(ctx, p) }}.Route(),
		route.Spec[api.ThreadWatchParams]{Method: api.MethodThreadWatch, Policy: route.Everyone, Escalate: s.watchPolicy,
			Call: func(ctx context.Context, env route.Env, p api.ThreadWatchParams) (any, error) {
				p.Caller = agentHint(env.Caller, p.Caller)
				return s.Watch(ctx, env.Caller, p)
			}}.Route(),
		route.Spec[api.ThreadVisibleParams]{Method: api.MethodThreadVisible, Policy: route.Everyone,
			Call: func(_ context.Context, env route.Env, p api.ThreadVisibleParams) (any, error) {
				visible := s.VisibleTo(env.Caller, env.Grant())
				return api.ThreadVisibleResult{Visible: visible == nil || visible(model.ThreadID(p.Thread))}, nil
			}}.Route(),
		route.Spec[api.ThreadLineageParams]{Method: api.MethodThreadLineage, Policy: route.Everyone,
			Call: func(ctx context.Context, env route.Env, p api.ThreadLineageParams) (any, error) {
				return s.Lineage(ctx, env, p)
			}}.Route(),
		// Open to every caller: what it sums is narrowed to the caller's own principal unless
		// the caller may list every thread (UsageSummary).
		route.Spec[api.UsageSummaryParams]{Method: api.MethodUsageSummary, Policy: route.Everyone,
			Call: func(_ context.Context, env route.Env, p api.UsageSummaryParams) (any, error) {
				return s.UsageSummary(env, p)
			}}.Route(),
		route.Spec[struct{}]{Method: api.MethodThreadWatches, Policy: route.Everyone,
			Call: func(_ context.Context, env route.Env, _ struct{}) (any, error) {
				return s.Watches(s.watchesVisible(env)), nil
			}}.Route(),
		route.Spec[api.ClientEventsParams]{Method: api.MethodClientEvents, Policy: clientOnlyPolicy,
			Call: func(ctx context.Context, env route.Env, p api.ClientEventsParams) (any, error) {
				return s.ClientEventsWait(ctx, env.Caller, p)
			}}.Route(),
	}
}

// HarnessList lists the registered harnesses, native first.
func (s *Service) HarnessList() api.HarnessListResult {
	var out api.HarnessListResult
	for _, name := range s.deps.Harnesses.Names() {
		if hs, ok := s.deps.Harnesses.Harness(name); ok {
			out.IDs = append(out.IDs, name)
			out.Harnesses = append(out.Harnesses, api.HarnessInfo{Name: name, Kind: hs.Kind()})
		}
	}
	return out
}

// lineageSource reads a lineage as the caller would with thread.read and thread.list.
type lineageSource struct {
	s       *Service
	caller  api.Caller
	visible func(model.ThreadID) bool // thread.list's filter of this caller
}

func (l lineageSource) Read(ctx context.Context, id string) (model.ThreadInfo, error) {
	res, err := l.s.Read(ctx, api.ThreadReadParams{Thread: id})
	return res.Thread, err
}

func (l lineageSource) Children(ctx context.Context, parent, cursor string) ([]model.ThreadInfo, string, error) {
	res, err := l.s.List(ctx, l.caller, api.ThreadListParams{Parent: parent, AnyCwd: true, Sort: "created-asc", Limit: model.MaxPageLimit, Cursor: cursor}, l.visible)
	return res.Threads, res.NextCursor, err
}
