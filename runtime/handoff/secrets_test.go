package handoff_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S004-09 — a provider profile works from config.toml as documented (no
// env_passthrough): its key reaches the App Server, which sends it to the model's endpoint,
// and never a model's shell: `env` run by the task's model, or by an ordinary native thread's,
// shows neither the key (under a name no default exclude catches) nor, for the task, any
// codexhost connection, so the task is a leaf.
func TestProviderKeyNeverReachesTheModelsShell(t *testing.T) {
	t.Parallel()
	const secret = "provider-credential-5d1c"
	th, root := handoffHost(t, hosttest.Options{Codex: true, Environ: []string{"LOCAL_LLM_AUTH=" + secret}}, nil)
	th.Cfg.Handoff.Providers = map[string]config.HandoffProvider{"local": {Kind: "openai-compatible", BaseURL: th.Fake.URL(), EnvKey: "LOCAL_LLM_AUTH", Model: "mock-model"}}
	if err := config.Save(th.Home, th.Cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart() // the runtime starts on a config.toml that has the profile
	c := th.Client("bot")
	h := demoHandoff(projectDir(t, root, "shell-env"), "read")
	h["objective"] = "Show the environment. [[mode:shell]] [[cmd:env]]"
	created := createHandoff(t, c, h)
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID, Provider: "local"})
	waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed)
	var outputs []string
	for _, r := range th.Fake.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+secret {
			t.Fatalf("the profile's key did not reach the model's endpoint: %q", got)
		}
		if out, ok := r.ToolOutput(); ok {
			outputs = append(outputs, out)
		}
	}
	taskRequests := len(th.Fake.Requests())
	if len(outputs) == 0 {
		t.Fatal("the model's shell never ran")
	}
	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, "PATH=") {
		t.Fatalf("the shell printed no environment: %q", all)
	}
	for _, leak := range []string{secret, "CODEXHOST_RUNTIME_TOKEN", "CODEXHOST_RUNTIME_ENDPOINT"} {
		if strings.Contains(all, leak) {
			t.Errorf("the task model's shell sees %q", leak)
		}
	}
	// An ordinary native thread of the same App Server: its shell does not see the key either.
	id := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "Show the environment. [[mode:shell]] [[cmd:env]]", Cwd: t.TempDir()}).Thread.ID
	hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: id}, TimeoutMs: api.WaitMs(60000)})
	var plain []string
	for _, r := range th.Fake.Requests()[taskRequests:] {
		if out, ok := r.ToolOutput(); ok {
			plain = append(plain, out)
		}
	}
	if got := strings.Join(plain, "\n"); !strings.Contains(got, "PATH=") || strings.Contains(got, secret) || strings.Contains(got, "LOCAL_LLM_AUTH") {
		t.Fatalf("a native thread's shell printed %q", got)
	}
}

// A Codex home kept inside the codexhost home (one backup, one chmod) is hidden with it: the
// task still starts, and its model's shell reads neither. Hiding both made Codex's sandbox
// try to mkdir the inner one inside the outer one's read-only mount, and every task failed
// to start ("bwrap: Can't mkdir …: Read-only file system").
func TestTaskStartsWithACodexHomeInsideTheHome(t *testing.T) {
	t.Parallel()
	th, root := handoffHost(t, hosttest.Options{Codex: true}, nil)
	inner := filepath.Join(th.Home, "codex")
	if err := os.MkdirAll(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inner, "auth.json"), []byte(`{"inner-secret-3b7"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	th.Cfg.Catalog.CodexHomes = []string{inner}
	if err := config.Save(th.Home, th.Cfg); err != nil {
		t.Fatal(err)
	}
	c := th.Client("bot")
	h := demoHandoff(projectDir(t, root, "nested-homes"), "read")
	h["objective"] = "Read the Codex home. [[mode:shell]] [[cmd:cat " + filepath.Join(inner, "auth.json") + "]]"
	created := createHandoff(t, c, h)
	started := hosttest.Call[api.TaskStartResult](t, c, api.MethodTaskStart, api.TaskStartParams{HandoffID: created.HandoffID})
	if info := waitTask(t, c, started.Task.TaskID, model.TaskCompleted, model.TaskFailed); info.Status != model.TaskCompleted {
		t.Fatalf("task %+v", info)
	}
	ran := false
	for _, r := range th.Fake.Requests() {
		out, ok := r.ToolOutput()
		ran = ran || ok
		if strings.Contains(out, "inner-secret-3b7") {
			t.Fatalf("the task's shell read the nested Codex home: %q", out)
		}
	}
	if !ran {
		t.Fatal("the model's shell never ran")
	}
}
