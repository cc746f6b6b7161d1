package runtime

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: S002-10 — the native path: a block in the model's reply of a completed native
// turn creates a thread, and the report reaches the native author as its next turn.
func TestS002_10_NativeReplyBlockRunsAndReportsAsNextTurn(t *testing.T) {
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}})
	c := th.client("bot")
	th.fake.Enqueue(fakemodel.Reply("I will delegate.\n```task-create\n{\"name\":\"native-child\",\"prompt\":\"from the native author\",\"harness\":\"shell\"}\n```\n"))
	author := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan the work", Cwd: t.TempDir()}).Thread.ID
	m := &markerEnv{testHost: th, c: c}
	report := m.report(author)
	if !strings.Contains(report, `1. task-create "native-child": accepted`) {
		t.Fatalf("report:\n%s", report)
	}
	audit := m.markers(author).Audit
	if len(audit) != 1 || audit[0].Created == "" {
		t.Fatalf("audit %+v", audit)
	}
	child := waitStopped(t, c, string(audit[0].Created))
	if child.Result == nil || child.Result.Status != model.TurnCompleted || !strings.Contains(child.Result.Text, "from the native author") {
		t.Fatalf("child %+v", child.Result)
	}
	// The report turn itself completes; its reply has no blocks, so nothing more runs.
	waitStopped(t, c, author)
	if got := m.reports(author); len(got) != 1 {
		t.Fatalf("%d reports", len(got))
	}
}
