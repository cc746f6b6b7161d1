package marker

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// Cleanup is what became of a created thread's worktree and branch.
type Cleanup = model.MarkerCleanup

// RemoveWorktree removes a created thread's worktree of repo (a common git dir) and deletes
// its branch when the branch has no commits of its own. A worktree with uncommitted changes
// is kept. With dryRun nothing changes: the result says what would happen.
func RemoveWorktree(ctx context.Context, repo, path, branch string, dryRun bool) Cleanup {
	c := Cleanup{Worktree: path, Branch: branch}
	if _, err := os.Stat(repo); err != nil {
		c.Kept = "the repository " + repo + " is not found"
		return c
	}
	gitDir := "--git-dir=" + repo
	if path != "" {
		if kept := removeTree(ctx, gitDir, path, dryRun); kept != "" {
			c.Kept = kept
			return c
		}
		c.WorktreeRemoved = true
	}
	if branch == "" {
		return c
	}
	if _, err := git(ctx, gitDir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		c.Branch = "" // gone already
		return c
	}
	n, err := ownCommits(ctx, gitDir, branch)
	switch {
	case err != nil:
		c.Kept = err.Error()
	case n > 0:
		c.OwnCommits = n
		c.Kept = "the branch has " + strconv.Itoa(n) + " commits of its own"
		if n == 1 {
			c.Kept = "the branch has a commit of its own"
		}
	case dryRun:
		c.BranchDeleted = true
	default:
		if _, err := git(ctx, gitDir, "branch", "-D", "--quiet", branch); err != nil {
			c.Kept = err.Error()
		} else {
			c.BranchDeleted = true
		}
	}
	return c
}

// removeTree removes a clean worktree; it returns why it was kept, "" when it went (or would).
func removeTree(ctx context.Context, gitDir, path string, dryRun bool) string {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if !dryRun {
			_, _ = git(ctx, gitDir, "worktree", "prune") // drop the registration of a deleted folder
		}
		return ""
	}
	status, err := git(ctx, "-C", path, "status", "--porcelain")
	switch {
	case err != nil:
		return err.Error()
	case status != "":
		return "the worktree has uncommitted changes"
	case dryRun:
		return ""
	}
	if _, err := git(ctx, gitDir, "worktree", "remove", path); err != nil {
		return err.Error()
	}
	return ""
}

// ownCommits counts the commits of branch that no other branch, tag or remote reaches (a
// detached HEAD elsewhere does not count as reaching: the branch is then kept).
func ownCommits(ctx context.Context, gitDir, branch string) (int, error) {
	out, err := git(ctx, gitDir, "rev-list", "--count", "refs/heads/"+branch, "--not", "--exclude="+branch, "--branches", "--tags", "--remotes")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}
