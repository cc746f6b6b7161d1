package runtime

import (
	"context"
	"os"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/lineage"
	"github.com/codexhost/codexhost/runtime/route"
)

// Policies of the runtime's own methods. Reading and waiting on any id is open to every
// caller (a user-given id is the authorisation to observe a thread); the catalog is for
// operators, with listing open to agents; node methods are for paired gateways alone.
var (
	forwardPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
		AgentHint: "only a runtime on the same home forwards requests"}
	clientOnlyPolicy = &route.Policy{Clients: &route.ClientRule{},
		AgentHint: "connect with the client's token (--client-token)"}
	catalogListPolicy = &route.Policy{Agents: &route.AgentRule{}, Clients: &route.ClientRule{Scope: config.ScopeRead}}
)

// newRoutes builds the routing table: every runtime API method, once, with its policy.
func (h *Host) newRoutes() *route.Table {
	return route.NewTable(h.currentConfig, h.runtimeRoutes(), h.threadRoutes(), h.catalogRoutes(), h.supervise.Routes(),
		h.compatRoutes(), h.node.Routes(), h.handoffRoutes())
}

// currentConfig rereads config.toml when it changed (a stat otherwise), so grants and
// switches take effect on the next call without a restart.
func (h *Host) currentConfig() *config.Config {
	if err := h.reloadConfig(); err != nil {
		h.logf("config reload: %v", err)
	}
	return h.config()
}

func (h *Host) runtimeRoutes() []route.Route {
	return []route.Route{
		route.TransportRoute(api.MethodEventsSubscribe, route.Everyone),
		route.Spec[api.ForwardParams]{Method: api.MethodRuntimeForward, Policy: forwardPolicy,
			Call: func(ctx context.Context, env route.Env, p api.ForwardParams) (any, error) { return h.forwarded(ctx, p) }}.Route(),
		route.Spec[struct{}]{Method: api.MethodRuntimeInfo, Policy: route.Everyone,
			Call: func(context.Context, route.Env, struct{}) (any, error) {
				return api.RuntimeInfo{Version: h.opts.Version, Home: h.opts.Home, Endpoints: h.Endpoints(), Pid: os.Getpid()}, nil
			}}.Route(),
		route.Spec[struct{}]{Method: api.MethodHarnessList, Policy: route.Everyone,
			Call: func(context.Context, route.Env, struct{}) (any, error) { return h.HarnessList(), nil }}.Route(),
	}
}

func (h *Host) threadRoutes() []route.Route {
	return []route.Route{
		route.Spec[api.DelegateStartParams]{Method: api.MethodDelegateStart, Policy: route.Everyone,
			Call: func(ctx context.Context, env route.Env, p api.DelegateStartParams) (any, error) {
				return h.DelegateStart(ctx, env.Caller, p)
			}}.Route(),
		route.Spec[api.ThreadReadParams]{Method: api.MethodThreadRead, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadReadParams) (any, error) {
				return h.ThreadRead(ctx, p)
			}}.Route(),
		route.Spec[api.ThreadWaitParams]{Method: api.MethodThreadWait, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadWaitParams) (any, error) {
				return h.ThreadWait(ctx, p)
			}}.Route(),
		route.Spec[api.ThreadListParams]{Method: api.MethodThreadList, Policy: route.Everyone,
			Call: func(ctx context.Context, env route.Env, p api.ThreadListParams) (any, error) {
				return h.ThreadList(ctx, env.Caller, p, h.listVisible(env))
			}}.Route(),
		route.Spec[api.ThreadSendParams]{Method: api.MethodThreadSend, Policy: route.Everyone, Escalate: h.sendPolicy,
			Call: func(ctx context.Context, env route.Env, p api.ThreadSendParams) (any, error) {
				return h.ThreadSend(ctx, p)
			}}.Route(),
		route.Spec[api.ThreadCancelParams]{Method: api.MethodThreadCancel, Policy: route.Everyone, Escalate: h.cancelPolicy,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadCancelParams) (any, error) {
				return h.ThreadCancel(ctx, p)
			}}.Route(),
		route.Spec[api.ThreadWatchParams]{Method: api.MethodThreadWatch, Policy: route.Everyone, Escalate: watchPolicy,
			Call: func(ctx context.Context, env route.Env, p api.ThreadWatchParams) (any, error) {
				return h.ThreadWatch(ctx, env.Caller, p)
			}}.Route(),
		route.Spec[api.ThreadLineageParams]{Method: api.MethodThreadLineage, Policy: route.Everyone,
			Call: func(ctx context.Context, env route.Env, p api.ThreadLineageParams) (any, error) {
				return lineage.Walk(ctx, lineageSource{h: h, caller: env.Caller, visible: h.listVisible(env)}, p.Thread, p.MaxNodes)
			}}.Route(),
		route.Spec[api.ThreadMarkersParams]{Method: api.MethodThreadMarkers, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadMarkersParams) (any, error) {
				return h.ThreadMarkers(ctx, p)
			}}.Route(),
		route.Spec[struct{}]{Method: api.MethodThreadWatches, Policy: route.Everyone,
			Call: func(context.Context, route.Env, struct{}) (any, error) { return h.ThreadWatches(), nil }}.Route(),
		route.Spec[api.ClientEventsParams]{Method: api.MethodClientEvents, Policy: clientOnlyPolicy,
			Call: func(_ context.Context, env route.Env, p api.ClientEventsParams) (any, error) {
				return h.ClientEvents(env.Caller, p)
			}}.Route(),
	}
}

// sendPolicy: a turn of a node-bound supervised thread needs what continuing that node's
// threads needs (supervise.SendPolicy); every other send follows the thread's principal
// (runtime/principal.go).
func (h *Host) sendPolicy(ctx context.Context, env route.Env, p api.ThreadSendParams) (*route.Policy, error) {
	if pol, err := h.supervise.SendPolicy(ctx, env, p); pol != nil || err != nil {
		return pol, err
	}
	return h.touchPolicy(env, p.Thread)
}

// watchPolicy: notifications to a client go only to that client asking for itself.
func watchPolicy(_ context.Context, _ route.Env, p api.ThreadWatchParams) (*route.Policy, error) {
	name, ok := strings.CutPrefix(p.Notify, model.ClientRecipientPrefix)
	if !ok {
		return nil, nil
	}
	return &route.Policy{Clients: &route.ClientRule{}, OnlyClient: name,
		ClientHint: "a client can only ask for notifications to itself: use --notify client:<your name> through your own token"}, nil
}

func (h *Host) catalogRoutes() []route.Route {
	return []route.Route{
		route.Spec[struct{}]{Method: api.MethodCatalogHosts, Policy: catalogListPolicy,
			Call: func(ctx context.Context, _ route.Env, _ struct{}) (any, error) {
				cat, err := h.runningCatalog()
				if err != nil {
					return nil, err
				}
				return cat.Hosts(ctx), nil
			}}.Route(),
		route.Spec[api.CatalogSessionsParams]{Method: api.MethodCatalogSessions, Policy: catalogListPolicy, Call: h.catalogSessions}.Route(),
		route.Spec[api.CatalogTranscriptParams]{Method: api.MethodCatalogTranscript, Policy: route.Operator(config.ScopeRead, false),
			Call: func(ctx context.Context, _ route.Env, p api.CatalogTranscriptParams) (any, error) {
				cat, err := h.runningCatalog()
				if err != nil {
					return nil, err
				}
				return cat.Transcript(ctx, p)
			}}.Route(),
		route.Spec[api.CatalogArchiveParams]{Method: api.MethodCatalogArchive, Policy: route.Operator(config.ScopeWrite, true),
			Call: func(ctx context.Context, _ route.Env, p api.CatalogArchiveParams) (any, error) {
				cat, err := h.runningCatalog()
				if err != nil {
					return nil, err
				}
				return cat.Archive(ctx, p)
			}}.Route(),
	}
}

func (h *Host) runningCatalog() (*catalog.Catalog, error) {
	if h.catalog == nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "restart the runtime", "the catalog is not running")
	}
	return h.catalog, nil
}

func (h *Host) catalogSessions(ctx context.Context, _ route.Env, p api.CatalogSessionsParams) (any, error) {
	cat, err := h.runningCatalog()
	if err != nil {
		return nil, err
	}
	var settled func(api.CatalogHostSessions)
	if p.Progress {
		// Each host's page goes to this caller alone, as soon as the host settles.
		settled = func(hs api.CatalogHostSessions) {
			api.Notify(ctx, api.Event{Type: api.EventCatalogHost, Catalog: &hs})
		}
	}
	return cat.List(ctx, p, settled)
}

// lineageSource reads a lineage as the caller would with thread.read and thread.list.
type lineageSource struct {
	h       *Host
	caller  api.Caller
	visible func(model.ThreadID) bool // thread.list's filter of this caller
}

func (s lineageSource) Read(ctx context.Context, id string) (model.ThreadInfo, error) {
	res, err := s.h.ThreadRead(ctx, api.ThreadReadParams{Thread: id})
	return res.Thread, err
}

func (s lineageSource) Children(ctx context.Context, parent, cursor string) ([]model.ThreadInfo, string, error) {
	res, err := s.h.ThreadList(ctx, s.caller, api.ThreadListParams{Parent: parent, AnyCwd: true, Sort: "created-asc", Limit: model.MaxPageLimit, Cursor: cursor}, s.visible)
	return res.Threads, res.NextCursor, err
}
