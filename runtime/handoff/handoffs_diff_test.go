package handoff_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S004-05 — includeDiff shows what changed in a git work tree: a modified tracked
// file, and a file the task added (untracked) as a new file with its content; a file matching
// a deny glob is listed, never its content.
func TestS004_05_IncludeDiffShowsAddedFiles(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "gitdemo")
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=dev@example.com", "-c", "user.name=dev"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("first line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gitIn("init", "-q")
	gitIn("add", "README.md")
	gitIn("commit", "-qm", "start")
	th.Fake.Enqueue(fakemodel.Shell("mkdir -p docs && printf 'demo line\\n' > docs/HANDOFF_DEMO.md && echo second line >> README.md && echo TOPSECRET=1 > .env"))
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(dir, "read", "write"))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	waitTask(t, c, started.Task.TaskID, model.TaskCompleted)
	res := hosttest.Call[api.TaskResult](t, c, api.MethodTaskResult, api.TaskResultParams{TaskID: started.Task.TaskID, IncludeDiff: true, MaxTextBytes: 20000})
	for _, want := range []string{"+++ b/docs/HANDOFF_DEMO.md", "+demo line", "new file mode", "+second line"} {
		if !strings.Contains(res.Diff, want) {
			t.Fatalf("diff lacks %q:\n%s", want, res.Diff)
		}
	}
	if strings.Contains(res.Diff, "TOPSECRET") || strings.Contains(res.Diff, ".env") {
		t.Fatalf("denied file in the diff:\n%s", res.Diff)
	}
	counts := map[string]int{}
	for _, f := range res.ChangedFiles {
		if f.Added != nil {
			counts[f.Path] = *f.Added
		}
	}
	if counts["docs/HANDOFF_DEMO.md"] != 1 || counts["README.md"] != 1 {
		t.Fatalf("changed files %+v", res.ChangedFiles)
	}
}
