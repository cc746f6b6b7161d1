// Package markertest holds the fixtures of tests that run marker blocks on a real runtime: an
// author harness that prints the blocks of its cwd, and git repositories for it to work in.
// It imports no runtime package, so the root package's tests may use it as well as the
// marker capability's.
package markertest

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/runtime/config"
)

// AuthorScript prints the blocks.md of its cwd and exits with the code in its file "exitcode"
// (0 without one); a report turn is answered without blocks, so the loop ends.
const AuthorScript = `p=$(cat); case "$p" in *"codexhost marker report"*) echo "report received"; exit 0;; esac
cat blocks.md 2>/dev/null; exit $(cat exitcode 2>/dev/null || echo 0)`

// Harnesses is base with the "author" harness (AuthorScript) and "sleep" (a turn of a minute).
func Harnesses(base map[string]config.Harness) map[string]config.Harness {
	hs := map[string]config.Harness{
		"author": {Command: []string{"sh", "-c", AuthorScript}},
		"sleep":  {Command: []string{"sh", "-c", "sleep 60"}},
	}
	maps.Copy(hs, base)
	return hs
}

// SandboxedCallersAllowed is base with the named harnesses opened to sandboxed authors.
func SandboxedCallersAllowed(base map[string]config.Harness, names ...string) map[string]config.Harness {
	out := maps.Clone(base)
	for _, n := range names {
		hc := out[n]
		hc.AllowSandboxedCallers = true
		out[n] = hc
	}
	return out
}

// GitRepo makes dir a fresh git repository, with a first commit when commit is set (else
// `git init` only: no HEAD yet), and returns it. Marker authors run in one by default: agents
// work in git checkouts.
func GitRepo(t testing.TB, dir string, commit bool) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	GitRun(t, dir, "init", "-q")
	if commit {
		if err := os.WriteFile(filepath.Join(dir, "README"), []byte("base\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		GitRun(t, dir, "add", "README")
		GitRun(t, dir, "commit", "-qm", "base")
	}
	return dir
}

// CommitBlocks commits blocks.md to the repository of dir, so the worktrees of created
// threads have it too.
func CommitBlocks(t testing.TB, dir, blocks string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "blocks.md"), []byte(blocks), 0o600); err != nil {
		t.Fatal(err)
	}
	GitRun(t, dir, "add", "blocks.md")
	GitRun(t, dir, "commit", "-qm", "blocks")
}

// Fence is a fenced block of the info string, as an author's reply writes marker blocks.
func Fence(info, body string) string { return "```" + info + "\n" + body + "\n```\n" }

// GitRun runs git in dir and returns its output.
func GitRun(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
	return string(out)
}
