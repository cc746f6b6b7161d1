package threads

import (
	"cmp"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/route"
)

// UsageOf is the public view of a thread's recorded usage; nil when it reported none (or the
// record cannot be read: a view shows it unknown rather than failing the read).
func (s *Service) UsageOf(id model.ThreadID) *model.Usage {
	if s.deps.Store == nil {
		return nil
	}
	u, err := s.deps.Store.ThreadUsage(id)
	if err != nil {
		return nil
	}
	return model.ViewUsage(&u, s.prices())
}

func (s *Service) prices() model.PriceBook {
	if s.opts.Config == nil {
		return nil
	}
	return s.opts.Config().PriceBook()
}

// UsageSummary is usage.summary: the recorded turns since a day, grouped by thread, by tree
// (its root thread) or by principal and day. A caller held to a principal (an agent, a
// client without operator.read) sums only its own principal's turns.
func (s *Service) UsageSummary(env route.Env, p api.UsageSummaryParams) (api.UsageSummaryResult, error) {
	by := cmp.Or(p.By, api.UsageByThread)
	if by != api.UsageByThread && by != api.UsageByTree && by != api.UsageByPrincipal {
		return api.UsageSummaryResult{}, model.Errorf(model.CodeInvalidArgument, "use --by thread, tree or principal", "unknown grouping %q", p.By)
	}
	since, err := model.SinceDay(p.Since, s.opts.Now())
	if err != nil {
		return api.UsageSummaryResult{}, err
	}
	mine := "" // "" sums every principal
	if s.VisibleTo(env.Caller, env.Grant()) != nil {
		if mine, err = s.callerPrincipal(env.Caller); err != nil {
			return api.UsageSummaryResult{}, err
		}
		if mine == "" {
			mine = unboundPrincipal
		}
	}
	var turns []model.TurnUsage
	err = s.deps.Store.TurnUsages(func(t model.TurnUsage) error {
		if (since == "" || model.Day(t.At) >= since) && (mine == "" || t.Principal == mine) {
			turns = append(turns, t)
		}
		return nil
	})
	if err != nil {
		return api.UsageSummaryResult{}, err
	}
	roots := map[model.ThreadID]model.ThreadID{}
	groups := model.GroupTurns(turns, func(t model.TurnUsage) model.UsageGroup {
		switch by {
		case api.UsageByTree:
			return model.UsageGroup{Thread: string(s.rootOf(t.Thread, roots)), Principal: t.Principal}
		case api.UsageByPrincipal:
			return model.UsageGroup{Principal: t.Principal, Day: model.Day(t.At)}
		}
		return model.UsageGroup{Thread: string(t.Thread), Principal: t.Principal}
	})
	prices := s.prices()
	res := api.UsageSummaryResult{By: by, Since: since, Rows: make([]api.UsageRow, 0, len(groups)), Total: model.TurnsUsage(turns, prices)}
	for _, g := range groups {
		res.Rows = append(res.Rows, api.UsageRow{Thread: g.Thread, Principal: g.Principal, Day: g.Day, Threads: g.Threads(),
			Usage: model.TurnsUsage(g.Turns, prices)})
	}
	return res, nil
}

// rootOf is the top thread of a thread's delegation tree (the thread a client started, or a
// thread nobody delegated); cache remembers answers within one call.
func (s *Service) rootOf(id model.ThreadID, cache map[model.ThreadID]model.ThreadID) model.ThreadID {
	if r, ok := cache[id]; ok {
		return r
	}
	cur, _, err := s.treeTop(id)
	if err != nil {
		cur = id // an unreadable record: the thread stands as its own tree
	}
	cache[id] = cur
	return cur
}
