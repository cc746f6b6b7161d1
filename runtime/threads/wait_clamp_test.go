package threads_test

import (
	"math"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// thread.wait's timeout is what the manual says: 0 reads at once (timedOut while the turn
// runs), more than an hour is refused rather than clamped or overflowed into an instant
// timeout, and no timeout waits the default.
func TestThreadWaitTimeoutBounds(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"alpha"}})
	c := th.Client("alpha")
	dir := t.TempDir()
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "slow", Task: "long job", Cwd: dir})
	wait := func(ms *int) api.ThreadWaitParams {
		return api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: res.Thread.ID}, TimeoutMs: ms}
	}
	now := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadWait, wait(api.WaitMs(0)))
	if now.TimedOut == nil || !*now.TimedOut || now.Thread.RunStatus != model.StatusRunning {
		t.Fatalf("wait 0 while the turn runs: %+v", now)
	}
	for _, ms := range []int{-1, 3600001, math.MaxInt} {
		hosttest.CallErr(t, c, api.MethodThreadWait, wait(api.WaitMs(ms)), model.CodeInvalidArgument)
	}
	hosttest.OpenGate(t, dir)
	got := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadWait, wait(nil))
	if got.TimedOut == nil || *got.TimedOut || got.Result == nil || got.Result.Status != model.TurnCompleted {
		t.Fatalf("wait after the turn ended: %+v", got)
	}
}
