package e2e

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// threadToolsConfig turns the thread tools on and adds leaf, an external harness whose turn
// prints its task back (cat), which read-only native threads may use.
const threadToolsConfig = "[appserver]\nthread_tools = true\n[harnesses.leaf]\ncommand = [\"cat\"]\nallow_sandboxed_callers = true\n"

var threadIDInOutput = regexp.MustCompile(`"threadId":\s*"([^"]+)"`)

// A native turn delegates through its own MCP tools, waits for the child and gets the child's
// final text back, all within one turn: the model calls thread_delegate_start, then
// thread_wait with the id the first call returned, then the destructive thread_cancel, which
// reaches codexhost without an approval prompt. The child is the thread's child, in the
// principal of the client that started the thread.
func TestNativeTurnDelegatesAndWaitsThroughThreadTools(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{config: threadToolsConfig})
	tok := h.addClient("ci")
	h.fake.Enqueue(
		fakemodel.MCPToolCall("codexhost", "thread.delegate_start", `{"harness":"leaf","task":"the child's answer is 42"}`),
		fakemodel.MCPToolCallFrom("codexhost", "thread.wait", func(prev string) string {
			m := threadIDInOutput.FindStringSubmatch(prev)
			if m == nil {
				return `{"thread":"no-thread-id-in-the-first-output"}`
			}
			return `{"thread":"` + m[1] + `","timeoutMs":60000}`
		}),
		// thread_cancel is destructive: Codex runs it under approval_policy = "never" only
		// because codexhost's per-thread config approves it.
		fakemodel.MCPToolCallFrom("codexhost", "thread.cancel", func(prev string) string {
			if m := threadIDInOutput.FindStringSubmatch(prev); m != nil {
				return `{"thread":"` + m[1] + `"}`
			}
			return `{"thread":"no-thread-id-in-the-wait-output"}`
		}),
	)
	parent := h.delegate(tok, "--harness", "codex", "--task", "delegate and wait")
	h.waitCompleted(tok, parent.Thread.ID)

	reqs := h.fake.Requests()
	if len(reqs) < 4 {
		t.Fatalf("the model was asked %d times, want 4 (start, after delegate, after wait, after cancel)", len(reqs))
	}
	started, ok := reqs[1].ToolOutput()
	m := threadIDInOutput.FindStringSubmatch(started)
	if !ok || m == nil {
		t.Fatalf("thread_delegate_start answered the model %q (%v)", started, ok)
	}
	waited, ok := reqs[2].ToolOutput()
	if !ok || !strings.Contains(waited, "the child's answer is 42") || !strings.Contains(waited, `"completed"`) {
		t.Fatalf("thread_wait answered the model %q (%v): want the child's final text", waited, ok)
	}
	if cancelled, ok := reqs[3].ToolOutput(); !ok || !strings.Contains(cancelled, `"cancelled":false`) || !strings.Contains(cancelled, m[1]) {
		t.Fatalf("thread_cancel answered the model %q (%v): want codexhost's answer on the idle child", cancelled, ok)
	}
	child := h.read(tok, m[1])
	if child.Thread.Origin == nil || child.Thread.Origin.ParentThread != parent.Thread.ID {
		t.Fatalf("the child's origin is %+v, want the native thread %s", child.Thread.Origin, parent.Thread.ID)
	}
	if ids := h.listIDs(tok, "--all-cwd"); !strings.Contains(strings.Join(ids, " "), m[1]) {
		t.Fatalf("the child is not in the principal of client ci: %v", ids)
	}
	stealThreadToolsToken(t, h)
}

// stealThreadToolsToken reads the token of a thread's MCP server from its environment, as a
// process of the same user can, and uses it from outside codexhost's processes: refused.
func stealThreadToolsToken(t *testing.T, h *host) {
	t.Helper()
	var endpoint, token string
	for _, pid := range descendants(h.serve.Process.Pid) {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if !strings.HasSuffix(string(cmdline), "\x00mcp\x00") {
			continue
		}
		environ, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		for _, kv := range strings.Split(string(environ), "\x00") {
			if v, ok := strings.CutPrefix(kv, "CODEXHOST_RUNTIME_TOKEN="); ok {
				token = v
			}
			if v, ok := strings.CutPrefix(kv, "CODEXHOST_RUNTIME_ENDPOINT="); ok {
				endpoint = v
			}
		}
	}
	if token == "" || endpoint == "" {
		t.Fatal("found no thread MCP server with connection parameters below the runtime")
	}
	res := run(t, h.work, []string{"HOME=" + h.cliHome, "CODEXHOST_RUNTIME_ENDPOINT=" + endpoint, "CODEXHOST_RUNTIME_TOKEN=" + token}, "thread", "list", "--all-cwd")
	if res.code == 0 || res.failure(t).Code != "PERMISSION_DENIED" {
		t.Fatalf("a stolen thread token was accepted from outside: %s", res)
	}
}

// descendants are every process below pid.
func descendants(pid int) []int {
	var out []int
	for _, c := range childPids(pid) {
		out = append(out, c)
		out = append(out, descendants(c)...)
	}
	return out
}
