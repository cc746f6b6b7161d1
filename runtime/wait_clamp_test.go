package runtime

import (
	"math"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// thread.wait with the largest timeout does not overflow into "timed out at once": the
// timeout is clamped to MaxWaitTimeout, so the wait lasts until the turn ends.
func TestThreadWaitHugeTimeoutIsClamped(t *testing.T) {
	th := newTestHost(t, hostOptions{clients: []string{"alpha"}})
	c := th.client("alpha")
	dir := t.TempDir()
	res := delegate(t, c, api.DelegateStartParams{Harness: "slow", Task: "long job", Cwd: dir})
	done := make(chan api.ThreadReadResult, 1)
	go func() {
		done <- call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{
			ThreadReadParams: api.ThreadReadParams{Thread: res.Thread.ID}, TimeoutMs: math.MaxInt64})
	}()
	select {
	case got := <-done:
		t.Fatalf("the wait returned while the turn runs: timedOut %v, status %s", *got.TimedOut, got.Thread.Status)
	case <-time.After(300 * time.Millisecond): // the wait is still waiting, as it should
	}
	openGate(t, dir)
	got := <-done
	if got.TimedOut == nil || *got.TimedOut || got.Result == nil || got.Result.Status != model.TurnCompleted {
		t.Fatalf("wait after the turn ended: %+v", got)
	}
}
