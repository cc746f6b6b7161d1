package threads

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/lineage"
	"github.com/codexhost/codexhost/runtime/route"
)

// Lineage is thread.lineage: the tree the caller may read, its marker-created threads marked
// from the store (a runtime without the store, a follower, marks none).
func (s *Service) Lineage(ctx context.Context, env route.Env, p api.ThreadLineageParams) (api.ThreadLineageResult, error) {
	res, err := lineage.Walk(ctx, lineageSource{s: s, caller: env.Caller, visible: s.listVisible(env)}, p.Thread, p.MaxNodes)
	if err != nil {
		return res, err
	}
	lineage.SumUsage(&res)
	if s.deps.Store == nil {
		return res, nil
	}
	lineage.MarkCreated(&res, func(id model.ThreadID) (model.MarkerChild, bool) {
		c, err := s.deps.Store.MarkerChild(id)
		return c, err == nil
	})
	return res, nil
}
