package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The `next` commands of delegate start and thread send run as printed: pasted into sh from a
// CLI installed under a path with spaces and a quote, each prints the thread's JSON. Hints
// print `<` and `>` as written, not as \u003c escapes.
func TestNextCommandsRunAsPrintedFromAPathWithSpaces(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{"echo": echoHarness}})
	tok := h.addClient("ci")
	dir := filepath.Join(t.TempDir(), "my tools", "it's here")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	spaced := filepath.Join(dir, "codexhost")
	raw, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(spaced, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home, "CODEXHOST_CLIENT_TOKEN=" + tok}
	stdout, stderr, code, err := execCLI(spaced, h.work, env, []string{"delegate", "start", "--harness", "echo", "--task", "hello"})
	if err != nil || code != 0 {
		t.Fatalf("delegate start: %d %v %s", code, err, stderr)
	}
	var started struct {
		ThreadID string `json:"threadId"`
		Next     struct{ Read, Wait string }
	}
	if err := json.Unmarshal([]byte(stdout), &started); err != nil || started.Next.Read == "" {
		t.Fatalf("delegate start printed %s (%v)", stdout, err)
	}
	runNext(t, h.work, env, "delegate start", started.ThreadID, started.Next.Read, started.Next.Wait)

	// The wait above ran to the turn's end: the thread is idle, so a send starts a turn.
	stdout, stderr, code, err = execCLI(spaced, h.work, env, []string{"thread", "send", started.ThreadID, "--message", "again"})
	if err != nil || code != 0 {
		t.Fatalf("thread send: %d %v %s", code, err, stderr)
	}
	var sent struct {
		Next struct{ Read, Wait string }
	}
	if err := json.Unmarshal([]byte(stdout), &sent); err != nil || sent.Next.Read == "" {
		t.Fatalf("thread send printed %s (%v)", stdout, err)
	}
	runNext(t, h.work, env, "thread send", started.ThreadID, sent.Next.Read, sent.Next.Wait)

	_, stderr, _, _ = execCLI(spaced, h.work, env, []string{"thread", "read", "not-an-id"})
	if strings.Contains(stderr, `\u003c`) || !strings.Contains(stderr, "codex://threads/<uuid>") {
		t.Errorf("the hint escapes < and >: %s", stderr)
	}
}

// runNext runs each next command of cmd as sh reads it, and checks it printed thread's JSON.
func runNext(t *testing.T, dir string, env []string, cmd, thread string, lines ...string) {
	t.Helper()
	for _, line := range lines {
		c := exec.Command("sh", "-c", line)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		var res struct {
			ThreadID string `json:"threadId"`
		}
		if err != nil || json.Unmarshal(out, &res) != nil || res.ThreadID != thread {
			t.Errorf("%s: next %q in sh: %v\n%s", cmd, line, err, out)
		}
	}
}
