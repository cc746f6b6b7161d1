package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/mcp"
)

// checkToolsList compares tools/list with the server's own table: every tool and alias, with
// its input schema and readOnlyHint.
func checkToolsList(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		listed[tl.Name] = tl
	}
	want := 0
	for _, d := range mcp.Definitions() {
		var schema any
		b, _ := json.Marshal(d.Schema)
		_ = json.Unmarshal(b, &schema)
		for _, name := range d.Names() {
			want++
			tl := listed[name]
			if tl == nil {
				t.Fatalf("tools/list lacks %s: %v", name, slices.Collect(func(yield func(string) bool) {
					for n := range listed {
						if !yield(n) {
							return
						}
					}
				}))
			}
			if !reflect.DeepEqual(tl.InputSchema, schema) {
				t.Errorf("%s schema\n got %v\nwant %v", name, tl.InputSchema, schema)
			}
			if tl.Annotations == nil || tl.Annotations.ReadOnlyHint != d.ReadOnly || tl.Description == "" {
				t.Errorf("%s annotations %+v", name, tl.Annotations)
			}
		}
	}
	if len(listed) != want {
		t.Errorf("tools/list has %d tools, the table %d", len(listed), want)
	}
	for _, name := range []string{"handoff.create", "handoff_create", "codex_task_start", "codex_status", "codex_result", "codex_cancel",
		"skill_route", "skill_read", "skill_bundle", "codex_endpoint_probe", "codex_sessions_list", "codex_session_read", "codex_session_send", "codex_session_interrupt"} {
		if listed[name] == nil {
			t.Errorf("tools/list lacks %s", name)
		}
	}
}

// Scenario: S004-01 — handoff.create (and every other tool, with its alias and schema) is
// in tools/list over stdio and over Streamable HTTP.
func TestS004_01_MCPToolsListOverStdioAndHTTP(t *testing.T) {
	t.Parallel()
	h, _, token := mcpHost(t, "")
	checkToolsList(t, mcpStdio(t, h.mcpEnv(token)))
	cs, err := httpSession(t, mcpHTTP(t, h), token)
	if err != nil {
		t.Fatal(err)
	}
	checkToolsList(t, cs)
}

// Scenario: S004-04, S004-05, S004-06, S004-07 — handoff → start → status → result → cancel
// through the SDK client over stdio, against the real App Server with the fake model; the
// MCP caller's client is the origin of what it starts.
func TestS004_07_MCPRoundTripOverStdio(t *testing.T) {
	t.Parallel()
	h, root, token := mcpHost(t, "")
	cs := mcpStdio(t, h.mcpEnv(token))
	dir := mkProject(t, root, "demo")
	h.fake.Enqueue(fakemodel.WriteFile("docs/HANDOFF_DEMO.md", "# Handoff -> Codex Runner\n"))

	created := structured[api.HandoffCreateResult](t, callTool(t, cs, "handoff.create", demoHandoffArgs(dir)))
	if !strings.HasPrefix(created.HandoffID, "handoff_") {
		t.Fatalf("created %+v", created)
	}
	if _, err := os.Stat(created.HandoffFile); err != nil {
		t.Fatalf("handoff file: %v", err)
	}
	started := structured[struct{ Task map[string]any }](t, callTool(t, cs, "codex_task_start", map[string]any{"handoffId": created.HandoffID}))
	id, _ := started.Task["taskId"].(string)
	if id == "" || started.Task["handoffId"] != created.HandoffID || started.Task["next"] == nil {
		t.Fatalf("started %+v", started)
	}
	info := waitTaskStatus(t, cs, id, model.TaskCompleted, model.TaskFailed)
	linked, _ := info["linkedHandoff"].(map[string]any)
	if info["status"] != model.TaskCompleted || linked["handoffId"] != created.HandoffID || info["startedBy"] != "client:bot" {
		t.Fatalf("status %+v", info)
	}
	res := structured[struct{ Results []api.TaskResult }](t, callTool(t, cs, "codex.result", map[string]any{"taskId": id}))
	if len(res.Results) != 1 || len(res.Results[0].ChangedFiles) != 1 || res.Results[0].Log != "" || res.Results[0].Task.Handoff == nil {
		t.Fatalf("compact result %+v", res)
	}
	verbose := structured[struct{ Results []api.TaskResult }](t, callTool(t, cs, "codex_result", map[string]any{"includeLog": true, "maxTextBytes": 20000}))
	if len(verbose.Results) != 1 || !strings.Contains(verbose.Results[0].Log, "HANDOFF_DEMO") {
		t.Fatalf("newest result with log %+v", verbose)
	}

	// A second task hangs in the model; cancel stops it and records the canceller.
	h.fake.Enqueue(fakemodel.Hang())
	second := structured[api.HandoffCreateResult](t, callTool(t, cs, "handoff_create", demoHandoffArgs(dir)))
	started = structured[struct{ Task map[string]any }](t, callTool(t, cs, "codex.task_start", map[string]any{"handoffId": second.HandoffID, "mode": "debug"}))
	id, _ = started.Task["taskId"].(string)
	if started.Task["sandbox"] != "workspace-write" || started.Task["linkedHandoff"] == nil {
		t.Fatalf("debug start is the full record: %+v", started.Task)
	}
	waitTaskStatus(t, cs, id, model.TaskRunning)
	toolError(t, callTool(t, cs, "codex.cancel", map[string]any{"taskId": id}), model.CodeInvalidArgument)
	toolError(t, callTool(t, cs, "codex.cancel", map[string]any{"taskId": id, "confirm": false}), model.CodeInvalidArgument)
	cancelled := structured[api.TaskInfo](t, callTool(t, cs, "codex_cancel", map[string]any{"taskId": id, "confirm": true}))
	if cancelled.CancelledBy != "client:bot" {
		t.Fatalf("cancelled %+v", cancelled)
	}
	waitTaskStatus(t, cs, id, model.TaskCancelled)
}

// Scenario: S004-02, S004-03 — refusals through MCP are tool errors with the runtime's code
// and hint, and persist nothing: outside the roots, a symlink out of a root, high risk
// unconfirmed (held, not run), schema violations naming the field.
func TestS004_02_MCPRefusals(t *testing.T) {
	t.Parallel()
	h, root, token := mcpHost(t, "")
	cs := mcpStdio(t, h.mcpEnv(token))
	outside := t.TempDir()
	args := demoHandoffArgs(outside)
	e := toolError(t, callTool(t, cs, "handoff.create", args), model.CodeFailedPrecondition)
	if !strings.Contains(e.Message, "outside every allowed project root") {
		t.Fatalf("outside: %+v", e)
	}
	link := filepath.Join(root, "escape")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	args["projectPath"] = link
	toolError(t, callTool(t, cs, "handoff_create", args), model.CodeFailedPrecondition)
	args["projectPath"], args["allowedOperations"] = mkProject(t, root, "p"), []string{"shell.exec"}
	e = toolError(t, callTool(t, cs, "handoff.create", args), model.CodeInvalidArgument)
	if e.Details["field"] != "allowedOperations" {
		t.Fatalf("schema violation names no field: %+v", e)
	}
	args["allowedOperations"], args["title"] = []string{"read"}, strings.Repeat("x", 161)
	if e = toolError(t, callTool(t, cs, "handoff.create", args), model.CodeInvalidArgument); e.Details["field"] != "title" {
		t.Fatalf("title: %+v", e)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.home, "handoffs")); len(entries) != 0 {
		t.Fatalf("refused handoffs were written: %v", entries)
	}

	args["title"], args["riskLevel"] = "broad refactor", "high"
	high := structured[api.HandoffCreateResult](t, callTool(t, cs, "handoff.create", args))
	held := toolError(t, callTool(t, cs, "codex.task_start", map[string]any{"handoffId": high.HandoffID}), model.CodeFailedPrecondition)
	if !strings.Contains(held.Message, model.TaskAwaitingConfirmation) || !strings.Contains(held.Hint, "codexhost task confirm") {
		t.Fatalf("high risk %+v", held)
	}
	if n := len(h.fake.Requests()); n != 0 {
		t.Fatalf("an unconfirmed high-risk task reached the model (%d requests)", n)
	}
	toolError(t, callTool(t, cs, "codex.task_start", map[string]any{"handoffId": high.HandoffID, "task": "both"}), model.CodeInvalidArgument)
	toolError(t, callTool(t, cs, "codex.task_start", map[string]any{}), model.CodeInvalidArgument)
}

// Scenario: S004-02 — with no runtime holding the home, `codexhost mcp` embeds one for the
// operator at the keyboard; an empty allowed_project_roots denies every handoff.
func TestS004_02_MCPEmbeddedRuntimeEmptyRoots(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "chm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + t.TempDir(), "CODEXHOST_HOME=" + home, "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	cs := mcpStdio(t, env)
	e := toolError(t, callTool(t, cs, "handoff.create", demoHandoffArgs(t.TempDir())), model.CodeFailedPrecondition)
	if !strings.Contains(e.Message, "handoff.allowed_project_roots") {
		t.Fatalf("empty roots: %+v", e)
	}
	if st := structured[api.TaskStatusResult](t, callTool(t, cs, "codex.status", nil)); len(st.Tasks) != 0 {
		t.Fatalf("status %+v", st)
	}
}
