package marker

import (
	"context"
	"os"
	"path/filepath"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A runtime that stops after a task-create block made its worktree but before the created
// thread's record kept it leaves a worktree and branch that no record names (the block is
// reported interrupted_by_restart). Prune finds them in the worktree folder by their branch,
// codexhost/marker-<folder name>, and removes them as it removes a recorded one.

// orphanWorktrees cleans the marker worktrees of the worktree folder that no record names.
// Nothing is swept while a run may be creating threads: its worktree is not recorded yet.
func (s *Service) orphanWorktrees(ctx context.Context, recorded map[string]bool, dryRun bool) []api.MarkerPruneItem {
	if s.engine != nil && s.engine.Creating() {
		return nil
	}
	root, err := filepath.EvalSymlinks(s.worktreeRoot())
	if err != nil {
		return nil // no folder: no worktree was ever made
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []api.MarkerPruneItem
	for _, ent := range entries {
		path := filepath.Join(root, ent.Name())
		if !ent.IsDir() || recorded[path] {
			continue
		}
		repo, branch, ok := markerWorktree(ctx, path, ent.Name())
		if !ok {
			continue // not one of ours: left alone, whatever it is
		}
		item := api.MarkerPruneItem{Repo: repo}
		if user := s.threadIn(path); user != "" {
			item.Thread = string(user)
			item.Active = "a thread works in it that no marker record names"
			item.Cleanup = model.MarkerCleanup{Worktree: path, Branch: branch, Kept: item.Active}
		} else {
			item.Cleanup = RemoveWorktree(ctx, repo, path, branch, dryRun)
		}
		out = append(out, item)
	}
	return out
}

// markerWorktree reports whether path is a linked worktree made for a created thread: a
// .git file (not folder) and the branch its folder's name gives.
func markerWorktree(ctx context.Context, path, name string) (repo, branch string, ok bool) {
	if fi, err := os.Lstat(filepath.Join(path, ".git")); err != nil || !fi.Mode().IsRegular() {
		return "", "", false
	}
	head, err := git(ctx, "-C", path, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || head != BranchPrefix+name {
		return "", "", false
	}
	repo, ok = GitCommonDir(ctx, path)
	return repo, head, ok
}

// threadIn is a thread whose cwd lies in path (one started before the runtime stopped), "" when
// none is known; a store that cannot say names none.
func (s *Service) threadIn(path string) model.ThreadID {
	var hit model.ThreadID
	_ = s.deps.Store.Threads(func(rec model.ThreadRecord) error {
		if hit == "" && rec.Cwd != "" && within(rec.Cwd, path) {
			hit = rec.ID
		}
		return nil
	})
	return hit
}
