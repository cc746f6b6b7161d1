package marker

import (
	"context"
	"fmt"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// The worktrees and branches marker blocks make: removed when their thread is archived or
// pruned (markers.prune). A worktree with uncommitted changes and a branch with commits of its
// own are kept.

// Prune removes what belongs to created threads that ended and lists the rest.
func (s *Service) Prune(ctx context.Context, p api.MarkersPruneParams) (api.MarkersPruneResult, error) {
	legacy, err := s.legacyWorktrees()
	if err != nil {
		return api.MarkersPruneResult{}, err
	}
	var children []model.MarkerChild
	recorded := map[string]bool{}
	if err := s.deps.Store.EachMarkerChild(func(c model.MarkerChild) error {
		if wt, ok := legacy[c.Child]; ok && c.Repo == "" && c.Worktree == "" && c.Branch == "" {
			c = s.adoptLegacyWorktree(ctx, c, wt)
		}
		recorded[c.Worktree] = true
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
		if why := s.threadActive(ctx, c.Child); why != "" {
			item.Active = why
			item.Cleanup = model.MarkerCleanup{Worktree: c.Worktree, Branch: c.Branch, Kept: "the thread has not ended: " + why}
		} else {
			item.Cleanup = s.cleanWorktree(ctx, c, p.DryRun)
		}
		res.Threads = append(res.Threads, item)
	}
	res.Threads = append(res.Threads, s.orphanWorktrees(ctx, recorded, p.DryRun)...)
	return res, nil
}

// ThreadArchived removes the worktree of an archived thread; nil when it has none.
func (s *Service) ThreadArchived(ctx context.Context, id model.ThreadID) *model.MarkerCleanup {
	c, err := s.deps.Store.MarkerChild(id)
	if err != nil || (c.Worktree == "" && c.Branch == "") {
		return nil
	}
	out := s.cleanWorktree(ctx, c, false)
	return &out
}

// cleanWorktree removes the worktree and the branch without commits of its own, and
// records what is left, so a kept branch is listed again by the next prune.
func (s *Service) cleanWorktree(ctx context.Context, c model.MarkerChild, dryRun bool) model.MarkerCleanup {
	out := RemoveWorktree(ctx, c.Repo, c.Worktree, c.Branch, dryRun)
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
		if err := s.deps.Store.PutMarkerChild(c); err != nil {
			fmt.Fprintf(s.opts.Log, "marker worktree of %s: save: %v\n", c.Child, err)
		}
	}
	return out
}

// threadActive says why a created thread has not ended, "" when it has: its last turn
// is terminal (or the thread is gone) and no watch or marker run of it is pending.
func (s *Service) threadActive(ctx context.Context, id model.ThreadID) string {
	hs, err := s.opts.Threads.Harness(ctx, id)
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
	return s.ThreadPending(id)
}

// ThreadPending says which watch or marker run of the thread is pending, "" when none.
func (s *Service) ThreadPending(id model.ThreadID) string {
	why := ""
	if err := s.deps.Store.Watches(func(w model.Watch) error {
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
	if err := s.deps.Store.MarkerRuns(func(r model.MarkerRun) error {
		if r.Author == id && r.State == model.MarkerRunning {
			why = "a marker run of its blocks is pending"
		}
		return nil
	}); err != nil {
		return "its marker runs cannot be read: " + err.Error()
	}
	return why
}

// legacyWorktrees finds, in the runs' outcomes, the worktrees created before their
// marker-creation records kept them.
func (s *Service) legacyWorktrees() (map[model.ThreadID]model.MarkerCreated, error) {
	out := map[model.ThreadID]model.MarkerCreated{}
	err := s.deps.Store.MarkerRuns(func(r model.MarkerRun) error {
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
func (s *Service) adoptLegacyWorktree(ctx context.Context, c model.MarkerChild, wt model.MarkerCreated) model.MarkerChild {
	c.Worktree, c.Branch = wt.Worktree, wt.Branch
	repo, ok := GitCommonDir(ctx, wt.Worktree)
	if !ok {
		if rec, err := s.deps.Store.Thread(c.Parent); err == nil {
			repo, ok = GitCommonDir(ctx, rec.Cwd)
		}
	}
	if !ok {
		repo = "(unknown)"
	}
	c.Repo = repo
	return c
}
