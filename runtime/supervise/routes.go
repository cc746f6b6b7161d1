package supervise

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
)

// NodePolicy is what continuing (and every later turn of) a node's thread needs.
var NodePolicy = route.Operator(config.ScopeAdmin, true)

// Routes are the runtime API methods of supervised threads. Continue is an operator method:
// agents get no write controls, and a node's thread needs operator.admin.
func (s *Service) Routes() []route.Route {
	return []route.Route{
		route.Spec[api.CatalogContinueParams]{Method: api.MethodCatalogContinue, Policy: route.Operator(config.ScopeWrite, true),
			Escalate: func(_ context.Context, _ route.Env, p api.CatalogContinueParams) (*route.Policy, error) {
				if catalog.IsNodeHost(p.Host) {
					return NodePolicy, nil
				}
				return nil, nil
			},
			Call: func(ctx context.Context, _ route.Env, p api.CatalogContinueParams) (any, error) {
				return s.Continue(ctx, p)
			}}.Route(),
	}
}

// SendPolicy escalates thread.send: a turn of a node-bound supervised thread resumes the
// node's session, so every send needs what continuing that node's threads needs, now and
// not only when it was bound.
func (s *Service) SendPolicy(_ context.Context, _ route.Env, p api.ThreadSendParams) (*route.Policy, error) {
	id, err := model.ParseThreadID(p.Thread)
	if err != nil || s.branches == nil {
		return nil, nil
	}
	sup, ok, err := s.branches.Supervision(id)
	if err != nil {
		return nil, err
	}
	if ok && sup.Binding == model.BindingNodeSession {
		return NodePolicy, nil
	}
	return nil, nil
}
