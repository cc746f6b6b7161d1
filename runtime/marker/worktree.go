package marker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

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

// Project is a thread's workspace root: the git top level of its cwd, else its cwd.
func Project(ctx context.Context, cwd string) string {
	if top, ok := GitTop(ctx, cwd); ok {
		return top
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		return real
	}
	return cwd
}

// Worktree is a created thread's own git worktree.
type Worktree struct {
	Path   string // the worktree's top level
	Branch string
	Cwd    string // where the thread runs: the author's cwd's place inside the worktree
}

// AddWorktree makes a new worktree of the repository holding cwd, on a new branch from its
// HEAD, at root/name (root is under the home). The author's tree is not touched: its
// uncommitted changes stay where they are.
func AddWorktree(ctx context.Context, cwd, root, name string) (Worktree, error) {
	top, ok := GitTop(ctx, cwd)
	if !ok {
		return Worktree{}, fmt.Errorf("%s is not in a git work tree", cwd)
	}
	realCwd, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return Worktree{}, err
	}
	rel, err := filepath.Rel(top, realCwd)
	if err != nil || strings.HasPrefix(rel, "..") {
		return Worktree{}, fmt.Errorf("cwd %s is outside its work tree %s", cwd, top)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return Worktree{}, err
	}
	wt := Worktree{Path: filepath.Join(root, name), Branch: "codexhost/marker-" + name}
	cmd := exec.CommandContext(ctx, "git", "-C", top, "worktree", "add", "--quiet", "-b", wt.Branch, wt.Path, "HEAD")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Worktree{}, fmt.Errorf("git worktree add: %v: %s", err, short(strings.TrimSpace(string(out))))
	}
	wt.Cwd = filepath.Join(wt.Path, rel)
	return wt, nil
}
