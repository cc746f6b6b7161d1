package handoff_test

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Start-to-first-model-request of a task, next to a bare thread/start + turn/start on the
// same App Server: the difference is what the runner adds (policy check, records, prompt).
//
//	go test -run '^$' -bench 'TaskStart|BareTurn|HandoffCreate' ./runtime/
func BenchmarkTaskStartToFirstModelRequest(b *testing.B) {
	th, root := handoffHost(b, hosttest.Options{Codex: true}, nil)
	c := th.Client("bot")
	h := demoHandoff(projectDir(b, root, "bench"))
	ctx := context.Background()
	seen := len(th.Fake.Requests())
	b.ResetTimer()
	for range b.N {
		// One task runs per handoff at a time: each start gets a handoff of its own.
		b.StopTimer()
		created := createHandoff(b, c, h)
		b.StartTimer()
		hosttest.Call[api.TaskStartResult](b, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
		seen++
		if _, err := th.Fake.WaitRequests(ctx, seen); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBareTurnStartToFirstModelRequest(b *testing.B) {
	th, root := handoffHost(b, hosttest.Options{Codex: true}, nil)
	dir := projectDir(b, root, "bench")
	ctx := context.Background()
	as, err := th.Native().Client(ctx)
	if err != nil {
		b.Fatal(err)
	}
	seen := len(th.Fake.Requests())
	b.ResetTimer()
	for range b.N {
		started, err := as.ThreadStart(ctx, appserver.ThreadStartParams{Cwd: dir})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := as.TurnStart(ctx, appserver.TurnStartParams{ThreadID: started.Thread.ID, Input: appserver.TextInput("go")}); err != nil {
			b.Fatal(err)
		}
		seen++
		if _, err := th.Fake.WaitRequests(ctx, seen); err != nil {
			b.Fatal(err)
		}
	}
}

// The runtime method alone (validation, the 0600 file, the record), without a process start.
func BenchmarkHandoffCreate(b *testing.B) {
	th, root := handoffHost(b, hosttest.Options{}, nil)
	c := th.Client("bot")
	h := demoHandoff(projectDir(b, root, "bench"))
	b.ResetTimer()
	for range b.N {
		createHandoff(b, c, h)
	}
}
