package marker

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Scenario: S002-03 — an author working in a folder its repository's HEAD does not have yet
// (new, untracked, or ignored, such as a fresh package or a folder named "..data") gets a
// worktree whose cwd exists at the same place: the created thread starts there, not a
// refusal that the cwd is not a directory.
func TestS002_03_WorktreeCwdOfAFolderHEADDoesNotHave(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := filepath.Join(t.TempDir(), "the repo")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	gitT(t, repo, "init", "-q")
	gitT(t, repo, "commit", "--allow-empty", "-qm", "base")
	root := filepath.Join(t.TempDir(), "work trees")
	for i, sub := range []string{"new pkg/inner", "..data"} {
		cwd := filepath.Join(repo, sub)
		if err := os.MkdirAll(cwd, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cwd, "untracked"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		wt, err := AddWorktree(ctx, cwd, root, string(rune('a'+i)))
		if err != nil {
			t.Fatalf("%s: %v", sub, err)
		}
		if want := filepath.Join(wt.Path, sub); wt.Cwd != want {
			t.Fatalf("%s: cwd %q, want %q", sub, wt.Cwd, want)
		}
		if fi, err := os.Stat(wt.Cwd); err != nil || !fi.IsDir() {
			t.Fatalf("%s: the worktree's cwd is no directory: %v", sub, err)
		}
	}
}
