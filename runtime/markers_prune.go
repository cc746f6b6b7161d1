package runtime

import (
	"context"
	"fmt"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/marker"
	"github.com/codexhost/codexhost/runtime/route"
)

// The worktrees and branches marker blocks make: removed when their thread is archived or
// pruned. A worktree with uncommitted changes and a branch with commits of its own are kept.

// markersPruneRoute is markers.prune, an operator command: it removes folders and branches
// of the user's repositories.
func (h *Host) markersPruneRoute() route.Route {
	return route.Spec[api.MarkersPruneParams]{Method: api.MethodMarkersPrune, Policy: route.Operator(config.ScopeWrite, false),
		Call: func(ctx context.Context, _ route.Env, p api.MarkersPruneParams) (any, error) {
			return h.MarkersPrune(ctx, p)
		}}.Route()
}

// MarkersPrune removes what belongs to created threads that ended and lists the rest.
func (h *Host) MarkersPrune(ctx context.Context, p api.MarkersPruneParams) (api.MarkersPruneResult, error) {
	legacy, err := h.legacyMarkerWorktrees()
	if err != nil {
		return api.MarkersPruneResult{}, err
	}
	var children []model.MarkerChild
	if err := h.store.EachMarkerChild(func(c model.MarkerChild) error {
		if wt, ok := legacy[c.Child]; ok && c.Repo == "" && c.Worktree == "" && c.Branch == "" {
			c = h.adoptLegacyWorktree(ctx, c, wt)
		}
		if c.Worktree != "" || c.Branch != "" {
			children = append(children, c)
		}
		return nil
	}); err != nil {
		return api.MarkersPruneResult{}, err
	}
	res := api.MarkersPruneResult{DryRun: p.DryRun, Threads: []api.MarkerPruneItem{}}
	for _, c := range children {
		item := api.MarkerPruneItem{Thread: string(c.Child), Repo: c.Repo}
		if why := h.markerThreadActive(ctx, c.Child); why != "" {
			item.Active = why
			item.Cleanup = model.MarkerCleanup{Worktree: c.Worktree, Branch: c.Branch, Kept: "the thread has not ended: " + why}
		} else {
			item.Cleanup = h.cleanMarkerWorktree(ctx, c, p.DryRun)
		}
		res.Threads = append(res.Threads, item)
	}
	return res, nil
}

// markerThreadArchived removes the worktree of an archived thread; nil when it has none.
func (h *Host) markerThreadArchived(ctx context.Context, id model.ThreadID) *model.MarkerCleanup {
	c, err := h.store.MarkerChild(id)
	if err != nil || (c.Worktree == "" && c.Branch == "") {
		return nil
	}
	out := h.cleanMarkerWorktree(ctx, c, false)
	return &out
}

// cleanMarkerWorktree removes the worktree and the branch without commits of its own, and
// records what is left, so a kept branch is listed again by the next prune.
func (h *Host) cleanMarkerWorktree(ctx context.Context, c model.MarkerChild, dryRun bool) model.MarkerCleanup {
	out := marker.RemoveWorktree(ctx, c.Repo, c.Worktree, c.Branch, dryRun)
	if dryRun {
		return out
	}
	changed := false
	if out.WorktreeRemoved {
		c.Worktree, changed = "", true
	}
	if out.BranchDeleted || (out.Branch == "" && out.Kept == "") {
		c.Branch, changed = "", true
	}
	if changed {
		if err := h.store.PutMarkerChild(c); err != nil {
			h.logf("marker worktree of %s: save: %v", c.Child, err)
		}
	}
	return out
}

// markerThreadActive says why a created thread has not ended, "" when it has: its last turn
// is terminal (or the thread is gone) and no watch or marker run of it is pending.
func (h *Host) markerThreadActive(ctx context.Context, id model.ThreadID) string {
	hs, err := h.threads.Harness(ctx, id)
	if model.IsCode(err, model.CodeThreadNotFound) {
		return ""
	}
	if err != nil {
		return "it cannot be read: " + model.AsError(err).Message
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	switch {
	case model.IsCode(err, model.CodeThreadNotFound):
		return ""
	case err != nil:
		return "it cannot be read: " + model.AsError(err).Message
	case snap.Info.LastTurn == nil:
		return "it has not run a turn"
	}
	switch st := snap.Info.LastTurn.Status; {
	case snap.Info.Status == model.ThreadActive || st == model.TurnInProgress:
		return "its turn is running"
	case st != model.TurnCompleted && st != model.TurnFailed && st != model.TurnInterrupted:
		return "its last turn is " + st
	}
	return h.markerThreadPending(id)
}

// markerThreadPending says which watch or marker run of the thread is pending, "" when none.
func (h *Host) markerThreadPending(id model.ThreadID) string {
	why := ""
	if err := h.store.Watches(func(w model.Watch) error {
		if (w.Thread == id || w.Notify == string(id)) && (w.State == model.WatchWatching || w.State == model.WatchPending) {
			why = fmt.Sprintf("a watch is %s", w.State)
		}
		return nil
	}); err != nil {
		return "its watches cannot be read: " + err.Error() // unknown: left alone
	}
	if why != "" {
		return why
	}
	if err := h.store.MarkerRuns(func(r model.MarkerRun) error {
		if r.Author == id && r.State == model.MarkerRunning {
			why = "a marker run of its blocks is pending"
		}
		return nil
	}); err != nil {
		return "its marker runs cannot be read: " + err.Error()
	}
	return why
}

// legacyMarkerWorktrees finds, in the runs' outcomes, the worktrees created before their
// marker-creation records kept them.
func (h *Host) legacyMarkerWorktrees() (map[model.ThreadID]model.MarkerCreated, error) {
	out := map[model.ThreadID]model.MarkerCreated{}
	err := h.store.MarkerRuns(func(r model.MarkerRun) error {
		for _, o := range r.Outcomes {
			if c := o.Created; c != nil && c.Worktree != "" && c.Repo == "" {
				out[model.ThreadID(c.ID)] = *c
			}
		}
		return nil
	})
	return out, err
}

// adoptLegacyWorktree fills a record made before worktrees were kept in it: the repository
// is the worktree's, else the author's. Cleaning it saves the filled record.
func (h *Host) adoptLegacyWorktree(ctx context.Context, c model.MarkerChild, wt model.MarkerCreated) model.MarkerChild {
	c.Worktree, c.Branch = wt.Worktree, wt.Branch
	repo, ok := marker.GitCommonDir(ctx, wt.Worktree)
	if !ok {
		if rec, err := h.store.Thread(c.Parent); err == nil {
			repo, ok = marker.GitCommonDir(ctx, rec.Cwd)
		}
	}
	if !ok {
		repo = "(unknown)"
	}
	c.Repo = repo
	return c
}
