package handoff_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// The risk level is not self-declared: under the default policy a plain client's handoff that
// says low but asks write and run_tests waits for the operator, and says why; a read-only low
// handoff still starts at once; the operator's confirmation starts the held one (no network:
// it did not declare high).
func TestHandoffRiskFloorHoldsAMisdeclaredStart(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true, Grants: map[string]config.Grant{"writer": {Scopes: []string{config.ScopeWrite}}}},
		func(c *config.Config) { c.Handoff.AutoStartMaxRisk = "" })
	bot := th.Client("bot")
	h := demoHandoff(projectDir(t, root, "floor"), "read", "write", "run_tests")
	h["testCommands"] = []string{"true"}
	created := createHandoff(t, bot, h)
	if created.Handoff.RiskFloor != model.RiskMedium {
		t.Fatalf("handoff summary floor %q", created.Handoff.RiskFloor)
	}
	me := hosttest.CallErr(t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID}, model.CodeFailedPrecondition)
	taskID, _ := me.Details["taskId"].(string)
	if taskID == "" || me.Details["riskFloor"] != model.RiskMedium || me.Details["declaredRisk"] != model.RiskLow ||
		!strings.Contains(me.Message, "raised to medium") || !strings.Contains(me.Message, "auto_start_max_risk low") {
		t.Fatalf("error %+v", me)
	}
	info := waitTask(t, bot, taskID, model.TaskAwaitingConfirmation)
	if !info.StartedAt.IsZero() || info.RiskFloor != model.RiskMedium || !strings.Contains(info.HeldBecause, "write") || !strings.Contains(info.HeldBecause, "run_tests") {
		t.Fatalf("held task %+v", info)
	}
	if len(th.Fake.Requests()) != 0 {
		t.Fatal("the model was called before confirmation")
	}

	// Read-only and low, without test commands: it starts at once.
	th.Fake.Enqueue(fakemodel.Reply("looked"))
	ro := createHandoff(t, bot, demoHandoff(projectDir(t, root, "ro"), "read"))
	started := hosttest.Call[api.TaskStartResult](t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: ro.HandoffID})
	if started.Task.Status != model.TaskRunning || started.Task.HeldBecause != "" {
		t.Fatalf("read-only start %+v", started.Task)
	}
	waitTask(t, bot, started.Task.TaskID, model.TaskCompleted)

	// A client holding operator.write starts a medium task at once.
	th.Fake.Enqueue(fakemodel.Reply("wrote"))
	writer := th.Client("writer")
	mine := createHandoff(t, writer, demoHandoff(projectDir(t, root, "writer")))
	if w := hosttest.Call[api.TaskStartResult](t, writer, api.MethodTaskStart, api.TaskStartParams{HandoffID: mine.HandoffID}); w.Task.Status != model.TaskRunning {
		t.Fatalf("operator.write start %+v", w.Task)
	}

	th.Fake.Enqueue(fakemodel.Reply("done"))
	confirmed := hosttest.Call[api.TaskStartResult](t, th.Client(config.OperatorClient), api.MethodTaskConfirm, api.TaskConfirmParams{TaskID: taskID})
	if confirmed.Task.Network || confirmed.Task.ConfirmedBy != "client:local" || confirmed.Task.HeldBecause == "" {
		t.Fatalf("confirmed %+v", confirmed.Task)
	}
	waitTask(t, bot, taskID, model.TaskCompleted)
}

// A plain bot's test commands try to read the operator's token and Codex's auth.json (real
// files, real secrets) and to write outside the root: every read and write fails, and the
// task result, log included, holds neither secret. A deny-glob file a test command writes,
// in upper case, is a violation all the same.
func TestHandoffTestCommandsCannotReadSecrets(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	const token, auth = "chtok_operator_secret_5b1d", "sk-codex-auth-secret-9c2e"
	outside := t.TempDir()
	for p, v := range map[string]string{filepath.Join(th.Home, "operator.token"): token, filepath.Join(th.CodexHome, "auth.json"): `{"OPENAI_API_KEY":"` + auth + `"}`} {
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	dir := projectDir(t, root, "secrets")
	th.Fake.Enqueue(fakemodel.Reply("nothing to do"))
	bot := th.Client("bot")
	h := demoHandoff(dir, "read", "write", "run_tests")
	h["riskLevel"] = "medium"
	h["testCommands"] = []string{"cat " + filepath.Join(th.Home, "operator.token"), "cat " + filepath.Join(th.CodexHome, "auth.json"),
		"echo pwned > " + filepath.Join(outside, "pwned"), "echo X=1 > .ENV"}
	created := createHandoff(t, bot, h)
	started := hosttest.Call[api.TaskStartResult](t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	waitTask(t, bot, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	res := hosttest.Call[api.TaskResult](t, bot, api.MethodTaskResult, api.TaskResultParams{TaskID: started.Task.TaskID, IncludeLog: true, IncludeDiff: true, MaxTextBytes: 20000})
	if len(res.Tests) != 4 || res.Tests[0].ExitCode == 0 || res.Tests[1].ExitCode == 0 || res.Tests[2].ExitCode == 0 || res.Tests[3].ExitCode != 0 {
		t.Fatalf("tests %+v", res.Tests)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), token) || strings.Contains(string(b), auth) {
		t.Fatalf("a secret is in the task result: %s", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); !os.IsNotExist(err) {
		t.Fatalf("a test command wrote outside the root: %v", err)
	}
	if len(res.Violations) != 1 || !strings.Contains(res.Violations[0], ".ENV") || !strings.Contains(res.Violations[0], "by a test command") ||
		len(res.ChangedFiles) != 1 || !res.ChangedFiles[0].ByTests {
		t.Fatalf("violations %v, changed %+v", res.Violations, res.ChangedFiles)
	}
}

// A handoff task is a leaf: a task-create block in its model's reply creates no thread, and
// the marker audit records it refused.
func TestHandoffTaskMarkerBlocksAreRefused(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	h := demoHandoff(projectDir(t, root, "leaf"), "read")
	delete(h, "acceptanceCriteria") // not a goal thread: only the leaf rule refuses its blocks
	th.Fake.Enqueue(fakemodel.Reply("Delegating.\n" + fence("task-create", `{"name":"escape","prompt":"write outside the root","harness":"shell"}`)))
	bot := th.Client("bot")
	before := th.ThreadRecords()
	created := createHandoff(t, bot, h)
	started := hosttest.Call[api.TaskStartResult](t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	waitTask(t, bot, started.Task.TaskID, model.TaskCompleted)
	var audit []model.MarkerAudit
	hosttest.Eventually(t, "the block's audit", func() bool {
		audit = hosttest.Call[api.ThreadMarkersResult](t, bot, api.MethodThreadMarkers, api.ThreadMarkersParams{Thread: started.Task.TaskID}).Audit
		return len(audit) > 0
	})
	if len(audit) != 1 || audit[0].Tool != "task-create" || audit[0].Decision != "rejected" || audit[0].Code != "handoff_leaf" || audit[0].Created != "" {
		t.Fatalf("audit %+v", audit)
	}
	if n := th.ThreadRecords(); n != before+1 {
		t.Fatalf("thread records %d, want the task's alone (%d)", n, before+1)
	}
}

// A read-only task's model reads neither the operator's token nor Codex's auth.json: the
// thread's permission profile denies both homes, and neither secret reaches the result.
func TestHandoffTaskModelCannotReadSecrets(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	const token, auth = "chtok_operator_secret_77ad", "sk-codex-auth-secret-31fe"
	for p, v := range map[string]string{filepath.Join(th.Home, "operator.token"): token, filepath.Join(th.CodexHome, "auth.json"): `{"OPENAI_API_KEY":"` + auth + `"}`} {
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	th.Fake.Enqueue(fakemodel.Shell("cat " + filepath.Join(th.Home, "operator.token") + " " + filepath.Join(th.CodexHome, "auth.json") + "; ls " + root))
	bot := th.Client("bot")
	created := createHandoff(t, bot, demoHandoff(projectDir(t, root, "ro-secrets"), "read"))
	started := hosttest.Call[api.TaskStartResult](t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	waitTask(t, bot, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	out, ok := th.Fake.Requests()[1].ToolOutput()
	if !ok || strings.Contains(out, token) || strings.Contains(out, auth) || !strings.Contains(out, "Permission denied") || !strings.Contains(out, "ro-secrets") {
		t.Fatalf("the model's shell read: %q", out)
	}
	res := hosttest.Call[api.TaskResult](t, bot, api.MethodTaskResult, api.TaskResultParams{TaskID: started.Task.TaskID, IncludeLog: true, MaxTextBytes: 20000})
	if b, _ := json.Marshal(res); strings.Contains(string(b), token) || strings.Contains(string(b), auth) {
		t.Fatalf("a secret is in the task result: %s", b)
	}
}

// fence is a fenced block of the info string, as a model's reply writes marker blocks.
func fence(info, body string) string { return "```" + info + "\n" + body + "\n```\n" }
