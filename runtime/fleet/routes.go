package fleet

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
)

// Links is what the catalog's answers take from the supervised threads kept beside it: the
// rule that lists each native session once (api.SessionLink), naming the codexhost thread
// driving a session and the source of a branch, and the guard archive must respect.
type Links interface {
	LinkSessions(hs *api.CatalogHostSessions)
	Link(host, id string) (api.SessionLink, string)
	SessionOf(id string) (host, thread string, ok bool)
	ArchiveGuard() catalog.BranchGuard
}

// Agents do not list the fleet: an agent acts within its thread's principal, and the user's
// own sessions belong to none.
var listPolicy = &route.Policy{Clients: &route.ClientRule{Scope: config.ScopeRead},
	AgentHint: "an agent sees its own delegation tree (`codexhost thread list`); the fleet of sessions is the user's"}

// Routes are catalog.hosts, catalog.sessions, catalog.transcript and catalog.archive.
func (s *Service) Routes() []route.Route {
	return []route.Route{
		route.Spec[struct{}]{Method: api.MethodCatalogHosts, Policy: listPolicy,
			Call: func(ctx context.Context, _ route.Env, _ struct{}) (any, error) {
				cat, err := s.Catalog()
				if err != nil {
					return nil, err
				}
				return cat.Hosts(ctx), nil
			}}.Route(),
		route.Spec[api.CatalogSessionsParams]{Method: api.MethodCatalogSessions, Policy: listPolicy, Call: s.sessions}.Route(),
		route.Spec[api.CatalogTranscriptParams]{Method: api.MethodCatalogTranscript, Policy: route.Operator(config.ScopeRead, false),
			Call: func(ctx context.Context, _ route.Env, p api.CatalogTranscriptParams) (any, error) {
				cat, err := s.Catalog()
				if err != nil {
					return nil, err
				}
				p, err = s.sessionOf(p)
				if err != nil {
					return nil, err
				}
				res, err := cat.Transcript(ctx, p)
				if err == nil {
					res.SessionLink, _ = s.opts.Links.Link(res.Host, res.Thread)
					s.addApprovals(&res)
				}
				return res, err
			}}.Route(),
		route.Spec[api.CatalogArchiveParams]{Method: api.MethodCatalogArchive, Policy: route.Operator(config.ScopeWrite, true),
			Call: func(ctx context.Context, _ route.Env, p api.CatalogArchiveParams) (any, error) {
				cat, err := s.Catalog()
				if err != nil {
					return nil, err
				}
				res, err := cat.Archive(ctx, p, s.opts.Links.ArchiveGuard())
				if err == nil && s.opts.Archived != nil {
					res.MarkerWorktree = s.opts.Archived(ctx, model.ThreadID(res.Thread))
				}
				return res, err
			}}.Route(),
	}
}

// sessions is catalog.sessions with every page linked, the pages sent ahead to a caller that
// asked for progress included: each host's page goes to this caller alone, as soon as the
// host settles.
func (s *Service) sessions(ctx context.Context, _ route.Env, p api.CatalogSessionsParams) (any, error) {
	cat, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	var settled func(api.CatalogHostSessions)
	if p.Progress {
		settled = func(hs api.CatalogHostSessions) {
			s.opts.Links.LinkSessions(&hs)
			api.Notify(ctx, api.Event{Type: api.EventCatalogHost, Catalog: &hs})
		}
	}
	res, err := cat.List(ctx, p, settled)
	for i := range res.Hosts {
		s.opts.Links.LinkSessions(&res.Hosts[i])
	}
	return res, err
}

// addApprovals adds to each turn of a transcript of the default Codex home the approvals
// this runtime held for it (its native threads live there).
func (s *Service) addApprovals(res *api.CatalogTranscriptResult) {
	if res.Host != catalog.LocalHostID {
		return
	}
	byTurn := map[string][]model.Approval{}
	for _, a := range s.opts.Approvals.OfThread(res.Thread) {
		byTurn[a.TurnID] = append(byTurn[a.TurnID], a)
	}
	for i := range res.Turns {
		res.Turns[i].Approvals = byTurn[res.Turns[i].ID]
	}
}

// sessionOf reads the transcript of a supervised thread's native session when given the
// supervised thread's own id (what continue printed): the catalog knows only Codex's ids.
func (s *Service) sessionOf(p api.CatalogTranscriptParams) (api.CatalogTranscriptParams, error) {
	host, thread, ok := s.opts.Links.SessionOf(p.Thread)
	if !ok || (p.Host != "" && p.Host != host) {
		return p, nil
	}
	if thread == "" {
		return p, model.Errorf(model.CodeFailedPrecondition,
			"send to it first (`codexhost thread send "+p.Thread+" --operator --message TEXT`); until then `codexhost thread read "+p.Thread+" --operator` shows the history it carries",
			"supervised thread %s has no Codex session yet: its first send makes it", p.Thread)
	}
	p.Host, p.Thread = host, thread
	return p, nil
}
