package e2e

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Scenario: S004-09 — codex.task_start takes provider, as `task start --provider` does: a
// configured profile is the task's provider, an unknown one is refused naming the profiles.
func TestS004_09_MCPTaskStartTakesAProvider(t *testing.T) {
	t.Parallel()
	h, root, token := mcpHost(t, "[handoff.providers.same]\nmodel = \"mock-model\"\n")
	cs := mcpStdio(t, h.mcpEnv(token))
	created := structured[map[string]any](t, callTool(t, cs, "handoff.create", demoHandoffArgs(mkProject(t, root, "prov"))))
	id, _ := created["handoffId"].(string)
	me := toolError(t, callTool(t, cs, "codex.task_start", map[string]any{"handoffId": id, "provider": "nope"}), model.CodeInvalidArgument)
	if !strings.Contains(me.Message, `no provider profile "nope"`) || !strings.Contains(me.Hint, "same") {
		t.Fatalf("refusal %+v", me)
	}
	started := structured[struct {
		Task struct {
			TaskID   string `json:"taskId"`
			Provider string `json:"provider"`
		} `json:"task"`
	}](t, callTool(t, cs, "codex.task_start", map[string]any{"handoffId": id, "provider": "same", "mode": "debug"}))
	if started.Task.Provider != "same" {
		t.Fatalf("started %+v", started)
	}
	waitTaskStatus(t, cs, started.Task.TaskID, "completed")
}
