package marker

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/runtime/threads"
)

// Routes are thread.markers, open to every caller like thread.read, and markers.prune, an
// operator command: it removes folders and branches of the user's repositories.
func (s *Service) Routes() []route.Route {
	return []route.Route{
		route.Spec[api.ThreadMarkersParams]{Method: api.MethodThreadMarkers, Policy: route.Everyone,
			Call: func(ctx context.Context, _ route.Env, p api.ThreadMarkersParams) (any, error) {
				return s.ThreadMarkers(ctx, p)
			}}.Route(),
		route.Spec[api.MarkersPruneParams]{Method: api.MethodMarkersPrune, Policy: route.Operator(config.ScopeWrite, false),
			Call: func(ctx context.Context, _ route.Env, p api.MarkersPruneParams) (any, error) {
				return s.Prune(ctx, p)
			}}.Route(),
	}
}

// ThreadMarkers lists a thread's marker audit and its running polls and waits.
func (s *Service) ThreadMarkers(ctx context.Context, p api.ThreadMarkersParams) (api.ThreadMarkersResult, error) {
	id, err := threads.ParseThread(p.Thread)
	if err != nil {
		return api.ThreadMarkersResult{}, err
	}
	if _, err := s.opts.Threads.Harness(ctx, id); err != nil {
		return api.ThreadMarkersResult{}, err
	}
	audit, err := s.deps.Store.MarkerAudits(id)
	if err != nil {
		return api.ThreadMarkersResult{}, err
	}
	res := api.ThreadMarkersResult{Thread: string(id), Link: id.Link(), Audit: audit, Running: s.engine.Active(id)}
	if res.Audit == nil {
		res.Audit = []model.MarkerAudit{}
	}
	if res.Running == nil {
		res.Running = []model.MarkerRun{}
	}
	if c, err := s.deps.Store.MarkerChild(id); err == nil {
		res.Created = &c
	}
	return res, nil
}
