package runtime

import (
	"context"
	"os"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/approvals"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
)

// Policies of the runtime's own methods: forwarding is for a runtime on the same home; the
// catalog is for operators.
var (
	forwardPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
		AgentHint: "only a runtime on the same home forwards requests"}
	// Agents do not list the fleet: an agent acts within its thread's principal, and the
	// user's own sessions belong to none.
	catalogListPolicy = &route.Policy{Clients: &route.ClientRule{Scope: config.ScopeRead},
		AgentHint: "an agent sees its own delegation tree (`codexhost thread list`); the fleet of sessions is the user's"}
)

// newRoutes builds the routing table: every runtime API method, once, with its policy. Each
// capability registers its own group.
func (h *Host) newRoutes() *route.Table {
	return route.NewTable(h.currentConfig,
		h.runtimeRoutes(),                        // events.subscribe, runtime.forward, runtime.info
		h.threads.Routes(),                       // harness.list, delegate.start, thread.*, client.events (runtime/threads)
		h.markers.Routes(),                       // thread.markers, markers.prune (runtime/marker)
		h.catalogRoutes(),                        // catalog.hosts, catalog.sessions, catalog.transcript, catalog.archive
		h.supervise.Routes(),                     // catalog.continue (runtime/supervise)
		h.compatRoutes(),                         // compat.* (runtime/compat.go)
		h.node.Routes(),                          // node.describe, node.invoke (runtime/nodeserve)
		h.handoffs.Routes(),                      // handoff.*, task.*, skill.* (runtime/handoff)
		h.storeRoutes(),                          // store.backup (runtime/backup.go)
		h.codexSetupRoutes(),                     // codex.status, codex.install (runtime/codexsetup.go)
		approvals.Routes(h.approvals, h.threads), // approval.* (runtime/approvals)
	)
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
	}
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
				return h.linkTranscript(cat.Transcript(ctx, p))
			}}.Route(),
		route.Spec[api.CatalogArchiveParams]{Method: api.MethodCatalogArchive, Policy: route.Operator(config.ScopeWrite, true),
			Call: func(ctx context.Context, _ route.Env, p api.CatalogArchiveParams) (any, error) {
				cat, err := h.runningCatalog()
				if err != nil {
					return nil, err
				}
				res, err := cat.Archive(ctx, p)
				if err == nil {
					h.agents.End(model.ThreadID(res.Thread))
					res.MarkerWorktree = h.markers.ThreadArchived(ctx, model.ThreadID(res.Thread))
				}
				return res, err
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
	return h.listLinkedSessions(ctx, cat, p, settled)
}
