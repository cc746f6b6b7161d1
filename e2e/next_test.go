package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The `next` commands of delegate start and thread send run as printed: pasted into sh from a
// CLI installed under a path with spaces and a quote, each prints the thread's JSON. Hints
// print `<` and `>` as written, not as \u003c escapes.
func TestNextCommandsRunAsPrintedFromAPathWithSpaces(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{"echo": echoHarness}})
	tok := h.addClient("ci")
	spaced := spacedCLI(t)
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

// The commands an agent-facing error's hint names run as printed too: pasted into sh whose
// PATH has no codexhost (an agent's has only CODEXHOST_CLI_PATH), from a CLI installed under a
// path with spaces and a quote. They used to name `codexhost`, which sh did not find.
func TestErrorHintsRunAsPrintedWithoutCodexhostOnPath(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: map[string][]string{"sleeper": {"sh", "-c", "cat >/dev/null; sleep 60"}}})
	tok := h.addClient("ci")
	spaced := spacedCLI(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home, "CODEXHOST_CLIENT_TOKEN=" + tok}
	cli := func(args ...string) (string, string) {
		stdout, stderr, _, err := execCLI(spaced, h.work, env, args)
		if err != nil {
			t.Fatal(err)
		}
		return stdout, stderr
	}
	out, _ := cli("delegate", "start", "--harness", "sleeper", "--task", "sleep")
	var started struct {
		ThreadID string `json:"threadId"`
	}
	if err := json.Unmarshal([]byte(out), &started); err != nil {
		t.Fatalf("delegate start printed %s", out)
	}
	_, busy := cli("thread", "send", started.ThreadID, "--message", "now")
	_, notFound := cli("thread", "read", "019a0000-0000-7000-8000-00000000f00d")
	cli("thread", "cancel", started.ThreadID) // the hinted wait then returns at once
	for _, stderr := range []string{busy, notFound} {
		var doc struct{ Error struct{ Code, Hint string } }
		if err := json.Unmarshal([]byte(stderr), &doc); err != nil {
			t.Fatalf("error output %s", stderr)
		}
		_, rest, ok := strings.Cut(doc.Error.Hint, "`")
		command, _, ok2 := strings.Cut(rest, "`")
		if !ok || !ok2 {
			t.Fatalf("%s: the hint names no command: %q", doc.Error.Code, doc.Error.Hint)
		}
		c := exec.Command("sh", "-c", command)
		c.Dir, c.Env = h.work, env
		if b, err := c.CombinedOutput(); err != nil {
			t.Errorf("%s: hinted %q in sh: %v\n%s", doc.Error.Code, command, err, b)
		}
	}
}

// A watch notification says how to read the thread that stopped, and the agent it goes to
// can run that as written: its shell has CODEXHOST_CLI_PATH, not a codexhost on PATH. The
// notified harness runs the notification's read command and answers with what it printed.
func TestWatchNotificationReadCommandRunsInTheAgentsShell(t *testing.T) {
	t.Parallel()
	reader := []string{"sh", "-c", `in=$(cat); cmd=$(printf '%s\n' "$in" | sed -n 's/.*Read it with: //p' | head -n 1)
if [ -n "$cmd" ]; then PATH=/usr/bin:/bin; eval "$cmd"; else echo ready; fi`}
	h := startHost(t, hostConfig{harnesses: map[string][]string{"reader": reader, "slow": {"sh", "-c", "sleep 1; cat"}}})
	tok := h.addClient("ci")
	agent := h.delegate(tok, "--harness", "reader", "--task", "wait for news")
	h.waitCompleted(tok, agent.Thread.ID)
	child := h.delegate(tok, "--harness", "slow", "--task", "the child's work")
	h.asClient(tok, "thread", "watch", child.Thread.ID, "--notify", agent.Thread.ID).decode(t, &struct{}{})
	h.waitCompleted(tok, child.Thread.ID)
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := h.read(tok, agent.Thread.ID)
		if res.Result != nil && strings.Contains(res.Result.Text, `"threadId":"`+child.Thread.ID+`"`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent could not run the notification's read command; its latest answer: %+v", res.Result)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// spacedCLI is a copy of the binary under a path with spaces and a quote, as some install it.
func spacedCLI(t *testing.T) string {
	t.Helper()
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
	return spaced
}
