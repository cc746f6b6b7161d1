package e2e

import (
	"strings"
	"testing"
	"time"
)

type approvalView struct {
	ID        string   `json:"id"`
	ThreadID  string   `json:"threadId"`
	Kind      string   `json:"kind"`
	Command   string   `json:"command"`
	State     string   `json:"state"`
	Decision  string   `json:"decision"`
	DecidedBy string   `json:"decidedBy"`
	Decisions []string `json:"decisions"`
}

// pendingApproval waits until the client sees a pending approval of thread.
func pendingApproval(t *testing.T, h *host, token, thread string) approvalView {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var res struct {
			Approvals []approvalView `json:"approvals"`
		}
		h.asClient(token, "approvals", "--pending", "--json").decode(t, &res)
		for _, a := range res.Approvals {
			if a.ThreadID == thread {
				return a
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	var modes []string
	for _, r := range h.fake.Requests() {
		modes = append(modes, r.Mode+":"+r.UserText)
	}
	t.Fatalf("no pending approval of %s after 60 s: %+v; model requests %q", thread, h.read(token, thread), modes)
	return approvalView{}
}

// A native thread started with --approval untrusted asks before its command runs; the
// request waits in `codexhost approvals` for its principal, another client neither sees nor
// answers it, and the answer reaches Codex: accept runs the command, decline does not.
func TestApprovalsFromTheFleetAcceptAndDecline(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{})
	ci, other := h.addClient("ci"), h.addClient("other")
	// Each command differs: a command accepted once ran again without asking in the same App
	// Server process.
	for _, c := range []struct{ decision, want string }{{"accept", "ran-after-approval accept"}, {"decline", "rejected"}} {
		t.Run(c.decision, func(t *testing.T) {
			th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo ran-after-approval "+c.decision+"]]")
			a := pendingApproval(t, h, ci, th.Thread.ID)
			if a.Kind != "command" || !strings.Contains(a.Command, "echo ran-after-approval") || len(a.Decisions) == 0 {
				t.Fatalf("approval %+v", a)
			}
			// The hostile second client: another principal's approval is neither listed nor answered.
			var seen struct {
				Approvals []approvalView `json:"approvals"`
			}
			h.asClient(other, "approvals", "--json").decode(t, &seen)
			for _, b := range seen.Approvals {
				if b.ThreadID == th.Thread.ID {
					t.Fatalf("another client lists the approval: %+v", b)
				}
			}
			if e := h.asClient(other, "approve", a.ID, "--decision", "accept", "--json").failure(t); e.Code != "PERMISSION_DENIED" {
				t.Fatalf("another client answered: %+v", e)
			}
			var done struct {
				Approval approvalView `json:"approval"`
			}
			h.asClient(ci, "approve", a.ID, "--decision", c.decision, "--json").decode(t, &done)
			if done.Approval.State != "answered" || done.Approval.Decision != c.decision || done.Approval.DecidedBy != "ci" {
				t.Fatalf("answered %+v", done.Approval)
			}
			h.waitCompleted(ci, th.Thread.ID)
			var outputs []string
			for _, r := range h.fake.Requests() {
				if out, ok := r.ToolOutput(); ok {
					outputs = append(outputs, out)
				}
			}
			if len(outputs) == 0 || !strings.Contains(strings.ToLower(outputs[len(outputs)-1]), c.want) {
				t.Fatalf("after %s the model got %q", c.decision, outputs)
			}
			if e := h.asClient(ci, "approve", a.ID, "--decision", "accept", "--json").failure(t); e.Code != "FAILED_PRECONDITION" {
				t.Fatalf("a second answer: %+v", e)
			}
		})
	}
}

// The same through MCP: a client's MCP server lists the request with approvals.list and
// answers it with approvals.answer; cancel interrupts the turn.
func TestApprovalsAnsweredThroughMCP(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	cs := mcpStdio(t, h.mcpEnv(ci))
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo through-mcp]]")
	a := pendingApproval(t, h, ci, th.Thread.ID)
	listed := structured[struct {
		Approvals []approvalView `json:"approvals"`
	}](t, callTool(t, cs, "approvals.list", map[string]any{"pending": true}))
	if len(listed.Approvals) != 1 || listed.Approvals[0].ID != a.ID {
		t.Fatalf("approvals.list: %+v", listed)
	}
	done := structured[struct {
		Approval approvalView `json:"approval"`
	}](t, callTool(t, cs, "approvals_answer", map[string]any{"id": a.ID, "decision": "cancel"}))
	if done.Approval.Decision != "cancel" || done.Approval.DecidedBy != "ci" {
		t.Fatalf("approvals.answer: %+v", done.Approval)
	}
	var res readResult
	h.asClient(ci, "thread", "wait", th.Thread.ID, "--timeout-ms", "30000").decode(t, &res)
	if res.Result == nil || res.Result.Status != "interrupted" {
		t.Fatalf("after cancel the turn is %+v", res.Result)
	}
}
