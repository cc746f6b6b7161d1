package marker_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
	"github.com/codexhost/codexhost/runtime/marker/markertest"
)

// Scenario: S002-10 — the native path: a block in the model's reply of a completed native
// turn, in a git repository, creates a thread in its own worktree, and the report reaches
// the native author as its next turn.
func TestS002_10_NativeReplyBlockRunsAndReportsAsNextTurn(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}, Harnesses: sandboxedCallersAllowed("shell")})
	c := th.Client("bot")
	th.Fake.Enqueue(fakemodel.Reply("I will delegate.\n```task-create\n{\"name\":\"native-child\",\"prompt\":\"from the native author\",\"harness\":\"shell\"}\n```\n"))
	repo := gitRepo(t, t.TempDir(), true)
	author := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan the work", Cwd: repo}).Thread.ID
	m := &markerEnv{Host: th, c: c}
	report := m.report(author)
	if !strings.Contains(report, `1. task-create "native-child": accepted`) || !strings.Contains(report, "in its own worktree") {
		t.Fatalf("report:\n%s", report)
	}
	audit := m.markers(author).Audit
	if len(audit) != 1 || audit[0].Created == "" {
		t.Fatalf("audit %+v", audit)
	}
	child := hosttest.WaitStopped(t, c, string(audit[0].Created))
	if child.Result == nil || child.Result.Status != model.TurnCompleted || !strings.Contains(child.Result.Text, "from the native author") {
		t.Fatalf("child %+v", child.Result)
	}
	if cwd := child.Thread.Cwd; !strings.HasPrefix(cwd, filepath.Join(th.Home, "worktrees")+string(filepath.Separator)) {
		t.Fatalf("the child runs in %s, not in a worktree of its own", cwd)
	}
	// The report turn itself completes; its reply has no blocks, so nothing more runs.
	hosttest.WaitStopped(t, c, author)
	if got := m.reports(author); len(got) != 1 {
		t.Fatalf("%d reports", len(got))
	}
}

// sandboxedCallersAllowed is the test homes' harnesses with the named ones opened to
// sandboxed authors.
func sandboxedCallersAllowed(names ...string) map[string]config.Harness {
	return markertest.SandboxedCallersAllowed(hosttest.Harnesses(), names...)
}

// Capability never widens through delegation: a native author confined by Codex's sandbox
// cannot create a thread on an external harness (which codexhost cannot confine) unless the
// operator opted that harness in, and a native thread it creates runs with its own sandbox
// and approval policy. The author works in a git repository with no commit yet, so the
// native child shares its cwd.
func TestMarkerCreatedThreadsRunWithTheirAuthorsSandbox(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}})
	c := th.Client("bot")
	m := &markerEnv{Host: th, c: c}
	th.Fake.Enqueue(fakemodel.Reply(fence("task-create", `{"name":"outside","prompt":"escape","harness":"shell"}`) +
		fence("task-create", `{"name":"inside","prompt":"stay"}`)))
	repo := gitRepo(t, t.TempDir(), false)
	author := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan", Cwd: repo}).Thread.ID
	report := m.report(author)
	if !strings.Contains(report, `"outside": rejected (create_failed): PERMISSION_DENIED`) || !strings.Contains(report, "read-only sandbox") {
		t.Errorf("the external creation was not refused for the sandbox:\n%s", report)
	}
	if !strings.Contains(report, `"inside": accepted`) || !strings.Contains(report, "no commit yet") {
		t.Errorf("the native creation in a repository without a commit:\n%s", report)
	}
	var created []string
	for _, a := range m.markers(author).Audit {
		if a.Created != "" {
			created = append(created, string(a.Created))
		}
	}
	if len(created) != 1 {
		t.Fatalf("created %v, want only the native child", created)
	}
	authorPol, ok := th.Native().PolicyOf(model.ThreadID(author))
	childPol, childOK := th.Native().PolicyOf(model.ThreadID(created[0]))
	if !ok || !childOK || childPol != authorPol || authorPol.Sandbox != "read-only" {
		t.Fatalf("author policy %+v (%v), child %+v (%v): want the child to run with the author's read-only sandbox", authorPol, ok, childPol, childOK)
	}
}
