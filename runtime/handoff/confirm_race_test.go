package handoff_test

import (
	"context"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Two confirmations of one held task at once (the operator's app and a terminal): one starts
// the turn, the other is refused. Before, the loser's turn/start failed THREAD_BUSY and it
// recorded the task failed ("the turn did not start") while the winner's turn ran, untracked.
// Its reason no longer says it waits for the operator once it runs.
func TestConcurrentConfirmsStartOneTurn(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	th.Fake.Enqueue(fakemodel.Reply("done"))
	bot := th.Client("bot")
	h := demoHandoff(projectDir(t, root, "race"))
	h["riskLevel"] = model.RiskHigh
	created := createHandoff(t, bot, h)
	me := hosttest.CallErr(t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID}, model.CodeFailedPrecondition)
	taskID, _ := me.Details["taskId"].(string)
	waitTask(t, bot, taskID, model.TaskAwaitingConfirmation)

	op := th.Client(config.OperatorClient)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res api.TaskStartResult
			errs[i] = op.Call(context.Background(), api.MethodTaskConfirm, api.TaskConfirmParams{TaskID: taskID}, &res)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !model.IsCode(err, model.CodeFailedPrecondition):
			t.Errorf("a losing confirmation: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d confirmations started the task: %v", won, errs)
	}
	info := waitTask(t, bot, taskID, model.TaskCompleted, model.TaskFailed, model.TaskInterrupted)
	if info.Status != model.TaskCompleted || info.Reason != "" {
		t.Fatalf("task after the confirmations %+v", info)
	}
}
