package marker

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}

// Scenario: S002-03 — a worktree with uncommitted changes is kept; once clean it goes, and a
// branch with a commit of its own is kept; a repository without a commit makes no worktree.
// Every path has a space.
func TestS002_03_WorktreeCleanupKeepsWhatWouldBeLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := filepath.Join(t.TempDir(), "the repo")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "init", "-q")
	root := filepath.Join(t.TempDir(), "work trees")
	if _, err := AddWorktree(ctx, repo, root, "none"); !errors.Is(err, ErrNoCommit) {
		t.Fatalf("no commit: %v", err)
	}
	if p, ok := GitCommonDir(ctx, repo); !ok || Project(ctx, repo) != p || !strings.HasSuffix(p, "/the repo/.git") {
		t.Fatalf("project of a repository without a commit: %q %v", p, ok)
	}
	gitT(t, repo, "commit", "--allow-empty", "-qm", "base")
	wt, err := AddWorktree(ctx, repo, root, "one")
	if err != nil {
		t.Fatal(err)
	}
	if Project(ctx, wt.Cwd) != Project(ctx, repo) || wt.Repo != Project(ctx, repo) {
		t.Fatalf("worktree project %q, repo %q", Project(ctx, wt.Cwd), Project(ctx, repo))
	}
	if err := os.WriteFile(filepath.Join(wt.Path, "notes"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := RemoveWorktree(ctx, wt.Repo, wt.Path, wt.Branch, false); c.WorktreeRemoved || c.Kept != "the worktree has uncommitted changes" {
		t.Fatalf("dirty: %+v", c)
	}
	gitT(t, wt.Path, "add", "notes")
	gitT(t, wt.Path, "commit", "-qm", "own")
	c := RemoveWorktree(ctx, wt.Repo, wt.Path, wt.Branch, false)
	if !c.WorktreeRemoved || c.BranchDeleted || c.OwnCommits != 1 {
		t.Fatalf("committed: %+v", c)
	}
	if _, err := os.Stat(wt.Path); !os.IsNotExist(err) || !strings.Contains(gitT(t, repo, "branch"), wt.Branch) {
		t.Fatalf("after: %v %s", err, gitT(t, repo, "branch"))
	}
	// Merged into the main branch, its commit is no longer its own: the branch goes.
	gitT(t, repo, "merge", "-q", "--ff-only", wt.Branch)
	if c := RemoveWorktree(ctx, wt.Repo, "", wt.Branch, false); !c.BranchDeleted {
		t.Fatalf("merged: %+v", c)
	}
}
