package marker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// BranchPrefix names the branches of created threads' worktrees.
const BranchPrefix = "codexhost/marker-"

// ErrNoCommit says the repository has no commit yet (`git init` only): there is no HEAD to
// branch a worktree from, so the created thread shares its author's cwd.
var ErrNoCommit = errors.New("the repository has no commit yet, so no worktree can be made")

func git(ctx context.Context, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, short(strings.TrimSpace(string(out))))
	}
	return strings.TrimSpace(string(out)), nil
}

// GitTop returns the top level of the git work tree holding dir, resolved through symlinks;
// ok is false outside a work tree (or without git).
func GitTop(ctx context.Context, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", false
	}
	top, err := filepath.EvalSymlinks(strings.TrimSpace(string(out)))
	if err != nil {
		return "", false
	}
	return top, true
}

// GitCommonDir returns the repository's common git dir for dir, absolute and resolved: the
// same for the main work tree and every linked worktree of one repository.
func GitCommonDir(ctx context.Context, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "--git-common-dir").Output()
	if err != nil {
		return "", false
	}
	common := strings.TrimSpace(string(out))
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common) // older git prints it relative to dir
	}
	real, err := filepath.EvalSymlinks(common)
	if err != nil {
		return "", false
	}
	return real, true
}

// Project is a thread's project: the repository (its common git dir) holding its cwd, else
// its cwd. A created thread's worktree is in its author's project.
func Project(ctx context.Context, cwd string) string {
	if common, ok := GitCommonDir(ctx, cwd); ok {
		return common
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		return real
	}
	return cwd
}

// Worktree is a created thread's own git worktree.
type Worktree struct {
	Repo   string // the repository's common git dir
	Path   string // the worktree's top level
	Branch string
	Cwd    string // where the thread runs: the author's cwd's place inside the worktree
}

// AddWorktree makes a new worktree of the repository holding cwd, on a new branch from its
// HEAD, at root/name. The author's tree is not touched: its uncommitted changes stay where
// they are. ErrNoCommit when the repository has no commit; a *model.Error refusal when root
// lies inside the repository's tree.
func AddWorktree(ctx context.Context, cwd, root, name string) (Worktree, error) {
	top, ok := GitTop(ctx, cwd)
	common, okCommon := GitCommonDir(ctx, cwd)
	if !ok || !okCommon {
		return Worktree{}, fmt.Errorf("%s is not in a git work tree", cwd)
	}
	realCwd, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return Worktree{}, err
	}
	rel, err := filepath.Rel(top, realCwd)
	if err != nil || !within(realCwd, top) {
		return Worktree{}, fmt.Errorf("cwd %s is outside its work tree %s", cwd, top)
	}
	if _, err := git(ctx, "-C", top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return Worktree{}, ErrNoCommit
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return Worktree{}, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return Worktree{}, err
	}
	if within(realRoot, top) || within(realRoot, common) {
		// A worktree inside the repository's tree would show in its status and be committed.
		return Worktree{}, model.Errorf(model.CodeFailedPrecondition, "set [markers] worktree_dir to a folder outside the repository",
			"the worktree folder %s is inside the repository %s", realRoot, top)
	}
	wt := Worktree{Repo: common, Path: filepath.Join(realRoot, name), Branch: BranchPrefix + name}
	if _, err := git(ctx, "-C", top, "worktree", "add", "--quiet", "-b", wt.Branch, wt.Path, "HEAD"); err != nil {
		return Worktree{}, err
	}
	wt.Cwd = filepath.Join(wt.Path, rel)
	// The author's folder may be new (untracked or ignored), so HEAD has no such folder: made
	// empty here, the thread starts at the same place in its tree rather than not at all.
	if err := os.MkdirAll(wt.Cwd, 0o700); err != nil {
		RemoveWorktree(ctx, wt.Repo, wt.Path, wt.Branch, false)
		return Worktree{}, err
	}
	return wt, nil
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
