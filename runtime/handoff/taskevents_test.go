package handoff_test

import (
	"context"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: issue 24 item 5. A task's outcome is recorded after its turn's end (evidence,
// test commands), so a view that read the tasks on the turn's thread.status still said
// running; task.status comes once the outcome is recorded, with it.
func TestTaskStatusEventFollowsTheRecordedOutcome(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "demo")
	th.Fake.Enqueue(fakemodel.WriteFile("docs/HANDOFF_DEMO.md", "# Handoff -> Codex Runner\n"))
	c := th.Client("bot")
	var mu sync.Mutex
	var got []api.Event
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	th.Subscribe(ctx, func(ev api.Event) {
		if ev.Type == api.EventTaskStatus {
			mu.Lock()
			got = append(got, ev)
			mu.Unlock()
		}
	})
	created := createHandoff(t, c, demoHandoff(dir))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	var ev api.Event
	hosttest.Eventually(t, "a task.status event", func() bool {
		mu.Lock()
		defer mu.Unlock()
		if len(got) > 0 {
			ev = got[0]
		}
		return len(got) > 0
	})
	if ev.Thread != started.Task.TaskID || ev.Status != model.TaskCompleted {
		t.Fatalf("event %+v, want task %s completed", ev, started.Task.TaskID)
	}
	// What the event says is what task.status reads at once.
	res := hosttest.Call[api.TaskStatusResult](t, c, api.MethodTaskStatus, api.TaskStatusParams{TaskID: started.Task.TaskID})
	if res.Tasks[0].Status != ev.Status {
		t.Fatalf("task.status %s after the event %s", res.Tasks[0].Status, ev.Status)
	}
}
