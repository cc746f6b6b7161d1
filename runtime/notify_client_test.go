package runtime

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A --notify of client: with no name (or one no client can have) names nobody: it used to
// pass the "only that client itself" rule as no rule at all, registering a watch that
// notifies no one and that every other client asking the same shared, and an agent was told
// watching is closed to agents. Each caller now gets INVALID_ARGUMENT and nothing is registered.
func TestWatchNotifyClientNeedsAName(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot", "other"}})
	cwd := t.TempDir()
	bot := th.client("bot")
	running := delegate(t, bot, api.DelegateStartParams{Harness: "slow", Task: "still running", Cwd: cwd}).Thread.ID
	t.Cleanup(func() { openGate(t, cwd) })
	agent := th.dial(th.agents.ForThread(model.ThreadID(running)))
	callers := map[string]*api.Client{"bot": bot, "other": th.client("other"), "agent": agent}
	for who, c := range callers {
		for _, notify := range []string{"client:", "client:bot ", "client:Bot"} {
			var res api.WatchResult
			err := c.Call(context.Background(), api.MethodThreadWatch, api.ThreadWatchParams{Thread: running, Notify: notify, TimeoutMs: 60000}, &res)
			if !model.IsCode(err, model.CodeInvalidArgument) {
				t.Errorf("%s watching with --notify %q: %+v, %v; want INVALID_ARGUMENT", who, notify, res, err)
			}
		}
	}
	if w := th.threads.Watches(nil); len(w.Watching) != 0 {
		t.Errorf("watches registered for a nameless client: %+v", w.Watching)
	}
}
