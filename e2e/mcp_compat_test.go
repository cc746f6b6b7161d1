package e2e

import (
	"fmt"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Scenario: S003-23 — the five compat tools answer through MCP as `codexhost compat` does,
// under the same policy: the list holds loaded sessions unless stored ones are asked for,
// stored rows honour their cap, session send never starts or resumes an idle thread, and a
// client without the operator scopes is refused.
func TestS003_23_CompatToolsThroughMCP(t *testing.T) {
	t.Parallel()
	opsToken := config.NewToken()
	ops := fmt.Sprintf("[clients.ops]\ntoken_sha256 = %q\nscopes = [\"operator.write\"]\nallowRawTranscripts = true\nallowWriteControls = true\n",
		config.HashToken(opsToken))
	h, _, token := mcpHost(t, ops)
	// One native session, loaded in the runtime's App Server (a finished delegation).
	loaded := h.delegate(opsToken, "--harness", "codex", "--task", "hello", "--cwd", h.work).Thread.ID
	h.waitCompleted(opsToken, loaded)

	cs := mcpStdio(t, h.mcpEnv(opsToken))
	probe := structured[api.CompatProbeResult](t, callTool(t, cs, "codex_endpoint_probe", map[string]any{}))
	if len(probe.Endpoints) != 1 || !probe.Endpoints[0].OK || probe.Endpoints[0].CodexVersion == "" {
		t.Fatalf("probe %+v", probe)
	}
	list := structured[api.CompatSessionsListResult](t, callTool(t, cs, "codex_sessions_list", map[string]any{}))
	if len(list.Endpoints) != 1 || !hasSession(list.Endpoints[0].Sessions, loaded, true) {
		t.Fatalf("default list (loaded only) %+v", list)
	}
	for _, s := range list.Endpoints[0].Sessions {
		if !s.Loaded {
			t.Fatalf("the default list holds a stored session: %+v", s)
		}
	}
	capped := structured[api.CompatSessionsListResult](t, callTool(t, cs, "codex_sessions_list", map[string]any{"include_stored": true, "max_stored_sessions": 1}))
	stored := 0
	for _, s := range capped.Endpoints[0].Sessions {
		if !s.Loaded {
			stored++
		}
	}
	if stored > 1 || capped.Endpoints[0].StoredCap != 1 {
		t.Fatalf("stored rows over their cap: %+v", capped.Endpoints[0])
	}
	read := structured[struct {
		Session api.CompatSession `json:"session"`
		Turns   []map[string]any  `json:"turns"`
	}](t, callTool(t, cs, "codex_session_read", map[string]any{"thread": loaded}))
	if read.Session.ID != loaded || len(read.Turns) != 1 {
		t.Fatalf("session read %+v", read)
	}
	toolError(t, callTool(t, cs, "codex_session_send", map[string]any{"thread": loaded, "message": "more", "mode": "start"}), model.CodeInvalidArgument)
	if e := toolError(t, callTool(t, cs, "codex_session_send", map[string]any{"thread": loaded, "message": "more"}), model.CodeFailedPrecondition); e.Hint == "" {
		t.Fatal("an idle session's send names no fix")
	}
	if after := h.read(opsToken, loaded); after.Result == nil || after.Result.Status != "completed" {
		t.Fatalf("compat send changed the idle session: %+v", after)
	}

	plain := mcpStdio(t, h.mcpEnv(token))
	toolError(t, callTool(t, plain, "codex_sessions_list", map[string]any{}), model.CodePermissionDenied)
	toolError(t, callTool(t, plain, "codex_session_send", map[string]any{"thread": loaded, "message": "x"}), model.CodePermissionDenied)
}

func hasSession(ss []api.CompatSession, id string, loaded bool) bool {
	for _, s := range ss {
		if s.ID == id && s.Loaded == loaded {
			return true
		}
	}
	return false
}
