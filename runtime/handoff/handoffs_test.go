package handoff_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// handoffHost is a test host whose [handoff] policy allows one temporary root; the host is
// reopened so that the policy (and any App Server environment) applies from the start.
func handoffHost(t testing.TB, ho hosttest.Options, edit func(*config.Config)) (*hosttest.Host, string) {
	t.Helper()
	ho.Operators = append(ho.Operators, config.OperatorClient)
	ho.Clients = append(ho.Clients, "bot")
	th := hosttest.New(t, ho)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Medium starts at once here, so that tests of other rules start write tasks as plain
	// clients; the auto-start tests set the policy they test.
	th.Cfg.Handoff = config.Handoff{AllowedProjectRoots: []string{root}, DenyGlobs: []string{"**/.env", "**/*.pem"}, AutoStartMaxRisk: model.RiskMedium}
	if edit != nil {
		edit(th.Cfg)
	}
	if err := config.Save(th.Home, th.Cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart()
	return th, root
}

func demoHandoff(dir string, ops ...string) map[string]any {
	if len(ops) == 0 {
		ops = []string{"read", "write"}
	}
	return map[string]any{
		"title": "Add handoff demo document", "objective": "Create docs/HANDOFF_DEMO.md describing the Handoff -> Codex Runner loop.",
		"projectPath": dir, "constraints": []string{"Operate only inside the approved project root."},
		"allowedOperations": ops, "riskLevel": "low", "expectedArtifacts": []string{"docs/HANDOFF_DEMO.md"},
		"acceptanceCriteria": []string{"The file exists."},
	}
}

func createHandoff(t testing.TB, c *api.Client, h map[string]any) api.HandoffCreateResult {
	t.Helper()
	b, _ := json.Marshal(h)
	return hosttest.Call[api.HandoffCreateResult](t, c, api.MethodHandoffCreate, api.HandoffCreateParams{Handoff: b})
}

func waitTask(t testing.TB, c *api.Client, id string, statuses ...string) api.TaskInfo {
	t.Helper()
	var info api.TaskInfo
	hosttest.Eventually(t, "task "+id+" to be "+strings.Join(statuses, "|"), func() bool {
		res := hosttest.Call[api.TaskStatusResult](t, c, api.MethodTaskStatus, api.TaskStatusParams{TaskID: id})
		info = res.Tasks[0]
		return slices.Contains(statuses, info.Status)
	})
	return info
}

func projectDir(t testing.TB, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Scenario: S004-07 — create → start of a handoff for a temporary project creates
// docs/HANDOFF_DEMO.md through the real App Server; status and result link the handoff.
// Scenario: S004-04, S004-05
func TestS004_07_HandoffDemoCreatesTheArtifact(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "demo")
	th.Fake.Enqueue(fakemodel.WriteFile("docs/HANDOFF_DEMO.md", "# Handoff -> Codex Runner\n"))
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(dir))
	st, err := os.Stat(created.HandoffFile)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("handoff file %s: %v %v", created.HandoffFile, st, err)
	}
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	if started.Task.Sandbox != "workspace-write" || started.Task.Network || started.Task.HandoffID != created.HandoffID {
		t.Fatalf("started %+v", started.Task)
	}
	info := waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	if info.Status != model.TaskCompleted || info.Handoff == nil || info.Handoff.HandoffID != created.HandoffID || info.ChangedFiles != 1 {
		t.Fatalf("status %+v", info)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "docs", "HANDOFF_DEMO.md")); err != nil || !strings.Contains(string(b), "Codex Runner") {
		t.Fatalf("artifact: %q %v", b, err)
	}
	res := hosttest.Call[api.TaskResult](t, c, api.MethodTaskResult, api.TaskResultParams{TaskID: info.TaskID})
	if len(res.ChangedFiles) != 1 || res.ChangedFiles[0].Path != "docs/HANDOFF_DEMO.md" || len(res.Artifacts) != 1 || !res.Artifacts[0].Exists || res.Log != "" || res.Handoff != nil {
		t.Fatalf("compact result %+v", res)
	}
	full := hosttest.Call[api.TaskResult](t, c, api.MethodTaskResult, api.TaskResultParams{TaskID: info.TaskID, IncludeLog: true, IncludeHandoff: true, MaxTextBytes: 20000})
	if !strings.Contains(full.Log, "Create docs/HANDOFF_DEMO.md") || full.Handoff == nil || full.Handoff.Title != "Add handoff demo document" {
		t.Fatalf("the log holds the runner prompt built from the handoff: %+v", full)
	}
	// The prompt the model got came from the stored handoff.
	reqs := th.Fake.Requests()
	if !strings.Contains(reqs[0].UserText, "The file exists.") || !strings.Contains(reqs[0].UserText, "Operate only inside the approved project root.") {
		t.Fatalf("runner prompt: %s", reqs[0].UserText)
	}
	th.Shutdown()
	for k, v := range hosttest.ReadStore(t, th.Home) {
		if strings.Contains(v, "HANDOFF_DEMO") || strings.Contains(v, "Codex Runner") {
			t.Fatalf("content in store record %s: %s", k, v)
		}
	}
}

// A read-only handoff whose model tries to write leaves the tree unchanged; the result says why.
func TestS004_ReadOnlyHandoffCannotWrite(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "ro")
	th.Fake.Enqueue(fakemodel.WriteFile("docs/HANDOFF_DEMO.md", "nope"))
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(dir, "read"))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	if started.Task.Sandbox != "read-only" {
		t.Fatalf("sandbox %q", started.Task.Sandbox)
	}
	waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the tree changed: %v", entries)
	}
	out, ok := th.Fake.Requests()[1].ToolOutput()
	if !ok || !strings.Contains(out, "Read-only file system") {
		t.Fatalf("the write was not refused by the sandbox: %q", out)
	}
	res := hosttest.Call[api.TaskResult](t, c, api.MethodTaskResult, api.TaskResultParams{TaskID: started.Task.TaskID})
	if len(res.ChangedFiles) != 0 || res.Artifacts[0].Exists || !strings.Contains(res.Artifacts[0].Reason, "read-only") || len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "read-only") {
		t.Fatalf("result %+v", res)
	}
}

// Test commands run by codexhost with their exit codes; a changed file matching a deny glob
// is a violation, and its content never appears in the diff or log.
func TestS004_TestCommandsAndDenyGlobViolation(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "tests")
	th.Fake.Enqueue(fakemodel.Shell("mkdir -p docs && echo demo > docs/HANDOFF_DEMO.md && echo TOPSECRET=1 > .env"))
	c := th.Client("bot")
	h := demoHandoff(dir, "read", "write", "run_tests")
	h["testCommands"] = []string{"test -f docs/HANDOFF_DEMO.md", "exit 3"}
	created := createHandoff(t, c, h)
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	info := waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	if !info.Goal || info.TestsPassed == nil || *info.TestsPassed || info.Violations != 1 {
		t.Fatalf("status %+v", info)
	}
	// The task is a codexhost thread of its client, marked a goal thread for marker blocks.
	if rec, err := th.Store().Thread(model.ThreadID(info.TaskID)); err != nil || !rec.Goal {
		t.Fatalf("task thread record %+v: %v", rec, err)
	}
	if ids, _ := hosttest.ListAll(t, c, api.ThreadListParams{AnyCwd: true}); !slices.Contains(ids, info.TaskID) {
		t.Fatalf("the task's client does not list its thread: %v", ids)
	}
	res := hosttest.Call[api.TaskResult](t, c, api.MethodTaskResult, api.TaskResultParams{TaskID: info.TaskID, IncludeLog: true, IncludeDiff: true})
	if len(res.Tests) != 2 || res.Tests[0].ExitCode != 0 || res.Tests[1].ExitCode != 3 {
		t.Fatalf("tests %+v", res.Tests)
	}
	if len(res.Violations) != 1 || !strings.Contains(res.Violations[0], ".env") {
		t.Fatalf("violations %v", res.Violations)
	}
	if strings.Contains(res.Diff, "TOPSECRET") || strings.Contains(res.Log, "TOPSECRET=1\n") {
		t.Fatalf("denied content shown: %s %s", res.Diff, res.Log)
	}
}

// Scenario: S004-03 — refusals persist nothing.
func TestS004_03_RefusedHandoffsPersistNothing(t *testing.T) {
	th, root := handoffHost(t, hosttest.Options{}, nil)
	outside := t.TempDir()
	c := th.Client("bot")
	for name, edit := range map[string]func(m map[string]any){
		"outside":    func(m map[string]any) { m["projectPath"] = outside },
		"shell.exec": func(m map[string]any) { m["allowedOperations"] = []string{"shell.exec"} },
		"unknown op": func(m map[string]any) { m["allowedOperations"] = []string{"deploy"} },
		"unknown":    func(m map[string]any) { m["sandbox"] = "danger-full-access" },
		"title":      func(m map[string]any) { m["title"] = strings.Repeat("x", 161) },
	} {
		h := demoHandoff(projectDir(t, root, "p"))
		edit(h)
		b, _ := json.Marshal(h)
		if err := c.Call(t.Context(), api.MethodHandoffCreate, api.HandoffCreateParams{Handoff: b}, nil); err == nil {
			t.Fatalf("%s: accepted", name)
		}
	}
	if _, err := os.Stat(filepath.Join(th.Home, "handoffs")); !os.IsNotExist(err) {
		t.Fatalf("handoff files written: %v", err)
	}
	list := hosttest.Call[api.HandoffListResult](t, c, api.MethodHandoffList, api.HandoffListParams{})
	if len(list.Handoffs) != 0 {
		t.Fatalf("handoffs %+v", list)
	}
	hosttest.CallErr(t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: "handoff_01a22aa4-9000-7000-8000-000000000001"}, model.CodeInvalidArgument)
	hosttest.CallErr(t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: "x", TimeoutMs: 999}, model.CodeInvalidArgument)
}

// An empty roots list denies every handoff, naming the key.
func TestS004_02_EmptyRootsDenyEveryHandoff(t *testing.T) {
	th, _ := handoffHost(t, hosttest.Options{}, func(c *config.Config) { c.Handoff.AllowedProjectRoots = nil })
	b, _ := json.Marshal(demoHandoff(t.TempDir()))
	me := hosttest.CallErr(t, th.Client("bot"), api.MethodHandoffCreate, api.HandoffCreateParams{Handoff: b}, model.CodeFailedPrecondition)
	if !strings.Contains(me.Message, "handoff.allowed_project_roots") {
		t.Fatalf("message %q", me.Message)
	}
}

// A client's start of a high-risk handoff waits for the operator; only the operator confirms,
// and the confirmation grants the network.
func TestS004_HighRiskWaitsForTheOperator(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "high")
	bot, op := th.Client("bot"), th.Client(config.OperatorClient)
	h := demoHandoff(dir)
	h["riskLevel"] = "high"
	created := createHandoff(t, bot, h)
	me := hosttest.CallErr(t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID}, model.CodeFailedPrecondition)
	taskID, _ := me.Details["taskId"].(string)
	if taskID == "" || !strings.Contains(me.Message, "high risk") {
		t.Fatalf("error %+v", me)
	}
	if info := waitTask(t, bot, taskID, model.TaskAwaitingConfirmation); info.StartedAt.IsZero() == false {
		t.Fatalf("a turn started: %+v", info)
	}
	if len(th.Fake.Requests()) != 0 {
		t.Fatal("the model was called before confirmation")
	}
	hosttest.CallErr(t, bot, api.MethodTaskConfirm, api.TaskConfirmParams{TaskID: taskID}, model.CodePermissionDenied)
	hosttest.CallErr(t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID, ConfirmHighRisk: true}, model.CodePermissionDenied)
	hosttest.CallErr(t, op, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID}, model.CodeFailedPrecondition) // already awaiting
	confirmed := hosttest.Call[api.TaskStartResult](t, op, api.MethodTaskConfirm, api.TaskConfirmParams{TaskID: taskID})
	if !confirmed.Task.Network || confirmed.Task.ConfirmedBy != "client:local" {
		t.Fatalf("confirmed %+v", confirmed.Task)
	}
	waitTask(t, bot, taskID, model.TaskCompleted)
}

// Scenario: S004-06 — cancel needs confirm, interrupts the turn for real, and records who.
func TestS004_06_CancelInterruptsTheTurn(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	th.Fake.Enqueue(fakemodel.Hang())
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(projectDir(t, root, "cancel")))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	if _, err := th.Fake.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	hosttest.CallErr(t, c, api.MethodTaskCancel, api.TaskCancelParams{TaskID: started.Task.TaskID}, model.CodeInvalidArgument)
	info := hosttest.Call[api.TaskInfo](t, c, api.MethodTaskCancel, api.TaskCancelParams{TaskID: started.Task.TaskID, Confirm: true})
	if info.Status != model.TaskCancelled || info.CancelledBy != "client:bot" {
		t.Fatalf("cancel %+v", info)
	}
	if err := th.Fake.WaitDisconnects(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
}

// The timeout interrupts the turn (injected clock) and the task reads timedOut.
func TestS004_TimeoutInterruptsTheTurn(t *testing.T) {
	t.Parallel()
	fire := make(chan time.Time)
	asked := make(chan time.Duration, 1)
	after := func(d time.Duration) <-chan time.Time { asked <- d; return fire }
	th, root := handoffHost(t, hosttest.Options{Codex: true, TaskAfter: after}, nil)
	th.Fake.Enqueue(fakemodel.Hang())
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(projectDir(t, root, "timeout")))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID, TimeoutMs: 1000})
	if d := <-asked; d != time.Second {
		t.Fatalf("timeout %v", d)
	}
	if _, err := th.Fake.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	close(fire)
	info := waitTask(t, c, started.Task.TaskID, model.TaskTimedOut, model.TaskCompleted, model.TaskInterrupted)
	if info.Status != model.TaskTimedOut {
		t.Fatalf("status %+v", info)
	}
}

// A restart keeps handoffs and tasks; a task running at the restart reads interrupted.
func TestS004_RestartKeepsHandoffsAndTasks(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	th.Fake.Enqueue(fakemodel.Hang())
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(projectDir(t, root, "restart")))
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	th.Restart()
	c = th.Client("bot")
	info := hosttest.Call[api.TaskStatusResult](t, c, api.MethodTaskStatus, api.TaskStatusParams{}).Tasks
	if len(info) != 1 || info[0].TaskID != started.Task.TaskID || info[0].Status != model.TaskInterrupted || !strings.Contains(info[0].Reason, "restarted") {
		t.Fatalf("after restart %+v", info)
	}
	if l := hosttest.Call[api.HandoffListResult](t, c, api.MethodHandoffList, api.HandoffListParams{}); len(l.Handoffs) != 1 || l.Handoffs[0].HandoffID != created.HandoffID {
		t.Fatalf("handoffs %+v", l)
	}
}

// Scenario: S004-09 — a provider profile applies to the task's thread; the trace keeps only
// kind, base URL host, model and env key name, and the key's value is in no file of the home.
func TestS004_09_ProviderKeyNeverOnDisk(t *testing.T) {
	t.Parallel()
	const secret = "sk-test-provider-value-7f3a"
	var fakeURL string
	th, root := handoffHost(t, hosttest.Options{Codex: true, Environ: []string{"HANDOFF_TEST_KEY=" + secret}}, nil)
	fakeURL = th.Fake.URL()
	th.Cfg.Handoff.Providers = map[string]config.HandoffProvider{"local": {Kind: "openai-compatible", BaseURL: fakeURL, EnvKey: "HANDOFF_TEST_KEY", Model: "mock-model"},
		"unset": {Kind: "openai-compatible", BaseURL: fakeURL, EnvKey: "HANDOFF_UNSET_KEY", Model: "mock-model"}}
	if err := config.Save(th.Home, th.Cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart() // a fresh runtime on the config as documented: no env_passthrough needed
	c := th.Client("bot")
	created := createHandoff(t, c, demoHandoff(projectDir(t, root, "prov")))
	// A profile whose key is not in the runtime's environment is refused before any turn.
	if me := hosttest.CallErr(t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID, Provider: "unset"}, model.CodeFailedPrecondition); !strings.Contains(me.Message, "HANDOFF_UNSET_KEY") {
		t.Fatalf("refusal %+v", me)
	}
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID, Provider: "local"})
	waitTask(t, c, started.Task.TaskID, model.TaskCompleted)
	if got := th.Fake.Requests()[0].Header.Get("Authorization"); got != "Bearer "+secret {
		t.Fatalf("the profile was not applied: %q", got)
	}
	th.Shutdown()
	trace, err := os.ReadFile(filepath.Join(th.Home, "tasks", started.Task.TaskID, "trace.jsonl"))
	if err != nil || !strings.Contains(string(trace), `"envKey":"HANDOFF_TEST_KEY"`) || !strings.Contains(string(trace), `"baseUrlHost":"127.0.0.1"`) {
		t.Fatalf("trace %s %v", trace, err)
	}
	err = filepath.WalkDir(th.Home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), secret) {
			t.Errorf("the key is in %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Handoffs and tasks follow the threads' rules: a client lists only what it made unless it
// holds operator.read, reads any task whose id it was given, and cancels another client's
// task only with operator.write.
func TestTasksListOnlyTheirOwnersAndCancelFollowsThePrincipal(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true, Clients: []string{"other"}, Grants: map[string]config.Grant{
		"reader": {Scopes: []string{config.ScopeRead}},
		"writer": {Scopes: []string{config.ScopeWrite}},
	}}, nil)
	th.Fake.Enqueue(fakemodel.Slow(50*time.Millisecond, 20*time.Second), fakemodel.Slow(50*time.Millisecond, 20*time.Second))
	bot, other := th.Client("bot"), th.Client("other")
	mine := createHandoff(t, bot, demoHandoff(projectDir(t, root, "mine")))
	theirs := createHandoff(t, other, demoHandoff(projectDir(t, root, "theirs")))
	myTask := hosttest.Call[api.TaskStartResult](t, bot, api.MethodTaskStart, api.TaskStartParams{HandoffID: mine.HandoffID}).Task.TaskID
	theirTask := hosttest.Call[api.TaskStartResult](t, other, api.MethodTaskStart, api.TaskStartParams{HandoffID: theirs.HandoffID}).Task.TaskID

	tasks := func(c *api.Client) []string {
		var ids []string
		for _, ti := range hosttest.Call[api.TaskStatusResult](t, c, api.MethodTaskStatus, api.TaskStatusParams{}).Tasks {
			ids = append(ids, ti.TaskID)
		}
		return ids
	}
	handoffs := func(c *api.Client) []string {
		var ids []string
		for _, h := range hosttest.Call[api.HandoffListResult](t, c, api.MethodHandoffList, api.HandoffListParams{}).Handoffs {
			ids = append(ids, h.HandoffID)
		}
		return ids
	}
	if got := tasks(bot); !slices.Equal(got, []string{myTask}) {
		t.Errorf("bot lists tasks %v, want only its own %s", got, myTask)
	}
	if got := handoffs(bot); !slices.Equal(got, []string{mine.HandoffID}) {
		t.Errorf("bot lists handoffs %v, want only its own", got)
	}
	if got := tasks(th.Client("reader")); len(got) != 2 {
		t.Errorf("operator.read lists tasks %v, want both", got)
	}
	// A given id is read by anyone.
	hosttest.Call[api.TaskStatusResult](t, bot, api.MethodTaskStatus, api.TaskStatusParams{TaskID: theirTask})
	hosttest.CallErr(t, bot, api.MethodTaskCancel, api.TaskCancelParams{TaskID: theirTask, Confirm: true}, model.CodePermissionDenied)
	hosttest.Call[api.TaskInfo](t, th.Client("writer"), api.MethodTaskCancel, api.TaskCancelParams{TaskID: theirTask, Confirm: true})
	hosttest.Call[api.TaskInfo](t, bot, api.MethodTaskCancel, api.TaskCancelParams{TaskID: myTask, Confirm: true})
}

// Scenario: S004-04 — the legacy direct fields (task + projectPath) still start a task, with
// read and write at medium risk, through a handoff made for them.
func TestS004_04_LegacyDirectFieldsStartATask(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	dir := projectDir(t, root, "legacy")
	th.Fake.Enqueue(fakemodel.WriteFile("NOTES.md", "legacy\n"))
	c := th.Client("bot")
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{Task: "Write NOTES.md", ProjectPath: dir})
	info := waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	if info.Status != model.TaskCompleted || info.RiskLevel != model.RiskMedium || !slices.Equal(info.Operations, []string{"read", "write"}) || info.Handoff == nil {
		t.Fatalf("legacy task %+v", info)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "NOTES.md")); err != nil || string(b) != "legacy\n" {
		t.Fatalf("artifact %q %v", b, err)
	}
	if reqs := th.Fake.Requests(); len(reqs) == 0 || !strings.Contains(reqs[0].UserText, "Write NOTES.md") {
		t.Fatal("the runner prompt does not carry the legacy task text")
	}
	hosttest.CallErr(t, c, api.MethodTaskStart, api.TaskStartParams{Task: "x", ProjectPath: "/etc"}, model.CodeFailedPrecondition)
}

// A high-risk task awaiting confirmation still reads awaiting after a restart, and stays
// confirmable: its thread had no turn, so Codex did not keep it, and the confirmation runs the
// task in a new thread, as a task that names the one it replaces; the old one names it back.
func TestS004_HighRiskConfirmedAfterARestart(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	h := demoHandoff(projectDir(t, root, "later"))
	h["riskLevel"] = "high"
	created := createHandoff(t, th.Client("bot"), h)
	me := hosttest.CallErr(t, th.Client("bot"), api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID}, model.CodeFailedPrecondition)
	taskID, _ := me.Details["taskId"].(string)
	th.Restart()
	if info := waitTask(t, th.Client("bot"), taskID, model.TaskAwaitingConfirmation); info.Status != model.TaskAwaitingConfirmation {
		t.Fatalf("after restart %+v", info)
	}
	op := th.Client(config.OperatorClient)
	confirmed := hosttest.Call[api.TaskStartResult](t, op, api.MethodTaskConfirm, api.TaskConfirmParams{TaskID: taskID})
	// A thread Codex kept (a named thread is kept before its first turn) is confirmed in place;
	// one it did not keep is replaced by a new task naming it.
	inPlace := confirmed.Task.Replaces == "" && confirmed.Task.TaskID == taskID
	replaced := confirmed.Task.Replaces == taskID && confirmed.Task.TaskID != taskID
	if (!inPlace && !replaced) || confirmed.Task.ConfirmedBy != "client:"+config.OperatorClient ||
		confirmed.Task.StartedBy != "client:bot" || confirmed.Task.HeldBecause == "" || !confirmed.Task.Network {
		t.Fatalf("confirmed after the restart %+v", confirmed.Task)
	}
	done := waitTask(t, op, confirmed.Task.TaskID, model.TaskCompleted)
	if done.HandoffID != created.HandoffID {
		t.Fatalf("done %+v", done)
	}
	if replaced {
		old := waitTask(t, op, taskID, model.TaskInterrupted)
		if old.ReplacedBy != confirmed.Task.TaskID || !strings.Contains(old.Reason, confirmed.Task.TaskID) {
			t.Fatalf("the replaced task %+v", old)
		}
	}
	// The bot that asked for it lists the task that ran as its own.
	if got := waitTask(t, th.Client("bot"), confirmed.Task.TaskID, model.TaskCompleted); got.Status != model.TaskCompleted {
		t.Fatalf("bot reads %+v", got)
	}
}
