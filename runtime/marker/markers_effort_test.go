package marker_test

import (
	"context"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// createdThreads returns the threads an author's task-create blocks created, in block order.
func (m *markerEnv) createdThreads(author string, n int) []string {
	m.T.Helper()
	var ids []string
	hosttest.Eventually(m.T, "the created threads", func() bool {
		ids = ids[:0]
		for _, a := range m.markers(author).Audit {
			if a.Created != "" {
				ids = append(ids, string(a.Created))
			}
		}
		return len(ids) == n
	})
	return ids
}

// Scenario: S002-03 — the effort of task-create reaches an external harness as
// CODEXHOST_EFFORT on the created thread's turns; a block without effort sets none.
func TestS002_03_MarkerEffortReachesAnExternalHarness(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	author := m.author(m.cwd, fence("task-create", `{"prompt":"with effort","harness":"env","effort":"high"}`)+
		fence("task-create", `{"prompt":"without effort","harness":"env"}`))
	m.report(author)
	created := m.createdThreads(author, 2)
	for i, want := range []string{"high", ""} {
		res := hosttest.WaitStopped(t, m.c, created[i])
		if res.Result == nil {
			t.Fatalf("thread %d: no result", i)
		}
		if got, ok := hosttest.CodexhostVars(res.Result.Text)["CODEXHOST_EFFORT"]; got != want || ok != (want != "") {
			t.Fatalf("thread %d: CODEXHOST_EFFORT=%q (set %v), want %q", i, got, ok, want)
		}
	}
	// Every turn of the thread gets it, not only the first.
	turn := hosttest.Call[api.ThreadSendResult](t, m.c, api.MethodThreadSend, api.ThreadSendParams{Thread: created[0], Message: "again"}).TurnID
	var res api.ThreadReadResult
	hosttest.Eventually(t, "the second turn's end", func() bool {
		res = hosttest.ReadThread(t, m.c, created[0])
		return res.Thread.Status == model.ThreadIdle && res.Result != nil && res.Result.TurnID == turn
	})
	if got := hosttest.CodexhostVars(res.Result.Text)["CODEXHOST_EFFORT"]; got != "high" {
		t.Fatalf("second turn: CODEXHOST_EFFORT=%q", got)
	}
}

// Scenario: S002-03 — the effort of task-create on a native author's block reaches the
// created native thread's model requests as Codex's reasoning effort (max as xhigh).
func TestS002_03_MarkerEffortReachesTheNativeModel(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}})
	c := th.Client("bot")
	th.Fake.Enqueue(fakemodel.Reply("```task-create\n{\"prompt\":\"child at max effort\",\"effort\":\"max\"}\n```\n" +
		"```task-create\n{\"prompt\":\"child at default effort\"}\n```\n"))
	author := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "plan", Cwd: t.TempDir()}).Thread.ID
	m := &markerEnv{Host: th, c: c}
	m.report(author)
	for _, id := range m.createdThreads(author, 2) {
		hosttest.WaitStopped(t, c, id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	effort := func(text string) (string, bool) {
		reqs, _ := th.Fake.WaitRequests(ctx, 0)
		for _, r := range reqs {
			if r.UserText == text {
				reasoning, _ := r.JSON["reasoning"].(map[string]any)
				e, _ := reasoning["effort"].(string)
				return e, true
			}
		}
		return "", false
	}
	if got, ok := effort("child at max effort"); !ok || got != "xhigh" {
		t.Fatalf("reasoning.effort of the max child %q (request seen %v), want xhigh", got, ok)
	}
	if got, ok := effort("child at default effort"); !ok || got != "" {
		t.Fatalf("reasoning.effort of the default child %q (request seen %v), want none", got, ok)
	}
}
