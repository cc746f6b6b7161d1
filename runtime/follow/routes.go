package follow

import (
	"context"
	"encoding/json"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
)

// forwardPolicy: forwarding is for a runtime on the same home.
var forwardPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	AgentHint: "only a runtime on the same home forwards requests"}

// Handler serves one request as the runtime's table does.
type Handler func(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error)

// Routes are the runtime's own methods: events.subscribe (served by the connection),
// runtime.info, and runtime.forward, which runs a request a follower passed on with handle.
// config rereads config.toml: who may be forwarded is decided on the file as it is now.
func Routes(info func() api.RuntimeInfo, config func() (*config.Config, error), handle Handler) []route.Route {
	return []route.Route{
		route.TransportRoute(api.MethodEventsSubscribe, route.Everyone),
		route.Spec[api.ForwardParams]{Method: api.MethodRuntimeForward, Policy: forwardPolicy,
			Call: func(ctx context.Context, env route.Env, p api.ForwardParams) (any, error) {
				cfg, err := config()
				if err != nil {
					return nil, err
				}
				if err := checkForwarded(cfg, p); err != nil {
					return nil, err
				}
				return handle(ctx, p.Caller, p.Method, p.Params)
			}}.Route(),
		route.Spec[struct{}]{Method: api.MethodRuntimeInfo, Policy: route.Everyone,
			Call: func(context.Context, route.Env, struct{}) (any, error) { return info(), nil }}.Route(),
	}
}

// checkForwarded admits a request a follower passed on. Only the operator client may assert
// another caller (forwardPolicy): it is the home's user outside the runtime (it can rewrite
// config.toml), so trusting it grants nothing new. Forwarded callers are named clients
// (external or node), never the runtime's own processes.
func checkForwarded(cfg *config.Config, p api.ForwardParams) error {
	// The caller's kind follows from its entry: a node client's requests stay node requests.
	cl, ok := cfg.Clients[p.Caller.Client]
	kind := api.CallerClient
	if cl.Node {
		kind = api.CallerNode
	}
	if !ok || p.Caller.Kind != kind {
		return model.Errorf(model.CodeInvalidArgument, "forward requests of configured clients only",
			"cannot forward a request of caller %+v", p.Caller)
	}
	if p.Method == api.MethodRuntimeForward {
		return model.Errorf(model.CodeInvalidArgument, "forward the request itself", "a forwarded request cannot be forwarded again")
	}
	return nil
}
