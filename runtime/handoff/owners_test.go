package handoff_test

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A client starts only the handoffs it created: another client's handoff id names that
// client's work, refused like its threads; operator.write may.
func TestTaskStartOfAnotherClientsHandoffIsRefused(t *testing.T) {
	th, root := handoffHost(t, hosttest.Options{Clients: []string{"bot2"}, Grants: map[string]config.Grant{"writer": {Scopes: []string{config.ScopeWrite}}}}, nil)
	bot1, bot2 := th.Client("bot"), th.Client("bot2")
	made := createHandoff(t, bot1, demoHandoff(projectDir(t, root, "bot1-project"), "read"))
	me := hosttest.CallErr(t, bot2, api.MethodTaskStart, api.TaskStartParams{HandoffID: made.HandoffID}, model.CodePermissionDenied)
	if me.Hint == "" {
		t.Errorf("refusal without a hint: %v", me)
	}
	tasks := hosttest.Call[api.TaskStatusResult](t, th.Client(config.OperatorClient), api.MethodTaskStatus, api.TaskStatusParams{})
	if len(tasks.Tasks) != 0 {
		t.Fatalf("the refused start left tasks %+v", tasks.Tasks)
	}
	if err := th.Client("writer").Call(context.Background(), api.MethodTaskStart, api.TaskStartParams{HandoffID: made.HandoffID}, nil); model.IsCode(err, model.CodePermissionDenied) {
		t.Errorf("operator.write starting another client's handoff: %v", err)
	}
}
