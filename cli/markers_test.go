package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// thread markers prints the runtime's result as JSON (the default of agent-facing commands,
// --json and --format json alike), and the audit for people with --text.
func TestThreadMarkersPrintsTheAudit(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "chk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	script := `cat >/dev/null; printf '%s\n' '` + "```task-read" + `' '{"task_id":"019a0000-0000-7000-8000-0000000000ff"}' '` + "```" + `'`
	cfg := &config.Config{Harnesses: map[string]config.Harness{"author": {Command: []string{"sh", "-c", script}}}}
	if err := config.Save(home, cfg); err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	host := serveRuntime(t, home, environ)
	setenv(t, envHome, home)
	setenv(t, envClientToken, "")
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", host.Endpoints()[0])
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", host.RuntimeToken())
	res, err := host.Threads().Delegate(context.Background(), api.Caller{Kind: api.CallerClient, Client: "bot"}, api.DelegateStartParams{Harness: "author", Task: "go", Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Thread.ID
	var got api.ThreadMarkersResult
	deadline := time.Now().Add(30 * time.Second)
	for len(got.Audit) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no audit")
		}
		out, errOut, code := run(t, "thread", "markers", id, "--json")
		if code != 0 {
			t.Fatalf("markers --json (%d): %s", code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got.Thread != id || got.Audit[0].Info != "task-read" || got.Audit[0].Decision != "accepted" {
		t.Fatalf("%+v", got)
	}
	for _, args := range [][]string{{}, {"--format", "json"}} {
		out, _, code := run(t, append([]string{"thread", "markers", id}, args...)...)
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.Thread != id {
			t.Fatalf("markers %v (%d): %s", args, code, out)
		}
	}
	out, _, code := run(t, "thread", "markers", id, "--text")
	if code != 0 || !strings.Contains(out, "#1 task-read: accepted targets 019a0000-0000-7000-8000-0000000000ff") {
		t.Fatalf("human output (%d):\n%s", code, out)
	}
}

// The person at the keyboard reads a thread's marker audit for people as the JSON form does:
// `thread markers T --text --operator` connects as the operator, not as an agent that was
// given no runtime.
func TestThreadMarkersTextAtTheKeyboard(t *testing.T) {
	t.Parallel()
	home := operatorHome(t, "/nonexistent/codex", t.TempDir())
	config := "[harnesses.echo]\ncommand = [\"sh\", \"-c\", \"cat\"]\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "delegate", "start", "--harness", "echo", "--task", "no blocks", "--operator")
	var started api.DelegateStartResult
	if code != 0 || json.Unmarshal([]byte(out), &started) != nil {
		t.Fatalf("delegate start --operator: %d %s %s", code, out, errOut)
	}
	out, errOut, code = run(t, "thread", "markers", started.ThreadID, "--text", "--operator")
	if code != 0 || !strings.Contains(out, "thread codex://threads/"+started.ThreadID) || !strings.Contains(out, "no marker blocks") {
		t.Fatalf("markers --text --operator (%d):\n%s%s", code, out, errOut)
	}
}
