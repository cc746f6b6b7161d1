package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// An agent naming a thread outside its delegation tree is refused for that thread, and the
// refusal says so: it used to read "delegate.start is not open to agents", which tells an
// agent it cannot delegate at all when it only named the wrong parent.
func TestAgentRefusedForAnotherTreeSaysWhy(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot", "other"}})
	cwd := t.TempDir()
	mine := delegate(t, th.client("bot"), api.DelegateStartParams{Harness: "shell", Task: "the agent's own", Cwd: cwd}).Thread.ID
	theirs := delegate(t, th.client("other"), api.DelegateStartParams{Harness: "shell", Task: "another tree", Cwd: cwd}).Thread.ID
	waitStopped(t, th.client("bot"), mine)
	waitStopped(t, th.client("other"), theirs)
	agent := th.dial(th.agents.ForThread(model.ThreadID(mine)))
	calls := map[string]any{
		api.MethodDelegateStart: api.DelegateStartParams{Caller: api.CallerHint{ParentThread: theirs}, Harness: "shell", Task: "child", Cwd: cwd},
		api.MethodThreadSend:    api.ThreadSendParams{Thread: theirs, Message: "hi"},
		api.MethodThreadCancel:  api.ThreadCancelParams{Thread: theirs},
		api.MethodThreadWatch:   api.ThreadWatchParams{Thread: mine, Notify: theirs},
	}
	for method, params := range calls {
		err := agent.Call(context.Background(), method, params, nil)
		me := model.AsError(err)
		if !model.IsCode(err, model.CodePermissionDenied) || strings.Contains(me.Message, "not open to agents") || !strings.Contains(me.Message, "delegation tree") {
			t.Errorf("%s naming another tree's thread: %v; want PERMISSION_DENIED saying the thread is not of its tree", method, err)
		}
	}
}
