package e2e

import (
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// BenchmarkThreadToolsInTurn times one call as the model sees it, from the request that asks
// for a tool call to the follow-up that carries its result, within a real native turn:
// thread_read and thread_delegate_start through the thread's own MCP server, next to the
// CLI's `thread read` and `delegate start` run by the shell tool of the same kind of turn
// (workspace-write with network, so the shell reaches the socket). ms/call is that gap.
func BenchmarkThreadToolsInTurn(b *testing.B) {
	h := startHost(b, hostConfig{sandbox: "workspace-write+network", config: threadToolsConfig})
	tok := h.addClient("bench")
	leaf := h.delegate(tok, "--harness", "leaf", "--task", "read me")
	h.waitCompleted(tok, leaf.Thread.ID)
	native := h.delegate(tok, "--harness", "codex", "--task", "warm up")
	h.waitCompleted(tok, native.Thread.ID)
	calls := map[string]fakemodel.Behavior{
		"mcp/thread_read":           fakemodel.MCPToolCall("codexhost", "thread.read", `{"thread":"`+leaf.Thread.ID+`"}`),
		"shell/thread-read":         fakemodel.Shell(`"$CODEXHOST_CLI_PATH" thread read ` + leaf.Thread.ID),
		"mcp/thread_delegate_start": fakemodel.MCPToolCall("codexhost", "thread.delegate_start", `{"harness":"leaf","task":"child"}`),
		"shell/delegate-start":      fakemodel.Shell(`"$CODEXHOST_CLI_PATH" delegate start --harness leaf --task child`),
	}
	turn := func(call fakemodel.Behavior) time.Duration {
		h.fake.Enqueue(call)
		before := len(h.fake.Requests())
		h.asClient(tok, "thread", "send", native.Thread.ID, "--message", "go").decode(b, &struct{}{})
		h.waitCompleted(tok, native.Thread.ID)
		reqs := h.fake.Requests()[before:]
		if len(reqs) < 2 {
			b.Fatalf("the turn asked the model %d times", len(reqs))
		}
		if _, ok := reqs[1].ToolOutput(); !ok {
			b.Fatalf("the follow-up carries no tool output (first request %s)", reqs[0].Mode)
		}
		return reqs[1].At.Sub(reqs[0].At)
	}
	for _, name := range []string{"mcp/thread_read", "shell/thread-read", "mcp/thread_delegate_start", "shell/delegate-start"} {
		call := calls[name]
		turn(call) // the first call of a kind starts what it needs (the thread's MCP server)
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			n := 0
			for b.Loop() {
				total += turn(call)
				n++
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms/call")
		})
	}
}
