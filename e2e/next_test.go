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
	for name, line := range map[string]string{"read": started.Next.Read, "wait": started.Next.Wait} {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = h.work, env
		out, err := cmd.CombinedOutput()
		var res struct {
			ThreadID string `json:"threadId"`
		}
		if err != nil || json.Unmarshal(out, &res) != nil || res.ThreadID != started.ThreadID {
			t.Errorf("next.%s %q in sh: %v\n%s", name, line, err, out)
		}
	}
	_, stderr, _, _ = execCLI(spaced, h.work, env, []string{"thread", "read", "not-an-id"})
	if strings.Contains(stderr, `\u003c`) || !strings.Contains(stderr, "codex://threads/<uuid>") {
		t.Errorf("the hint escapes < and >: %s", stderr)
	}
}
