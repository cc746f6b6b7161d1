package e2e

import (
	"strings"
	"testing"
	"time"
)

// Issue 28 (expiry) against the real App Server: a request nobody answers gets the default
// decision (decline) at [approvals] timeout, recorded as decided by timeout, and Codex acts on
// it: the command does not run and the turn completes.
func TestApprovalNobodyAnswersIsDeclinedAtTheTimeout(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{config: "[approvals]\ntimeout = \"2s\"\n"})
	ci := h.addClient("ci")
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo never-answered]]")
	a := pendingApproval(t, h, ci, th.Thread.ID)
	var last []approvalView
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var res struct {
			Approvals []approvalView `json:"approvals"`
		}
		h.asClient(ci, "approvals", "--json").decode(t, &res)
		last = res.Approvals
		if len(last) == 1 && last[0].ID == a.ID && last[0].State != "pending" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(last) != 1 || last[0].State != "expired" || last[0].Decision != "decline" || last[0].DecidedBy != "timeout" {
		t.Fatalf("after the timeout: %+v", last)
	}
	h.waitCompleted(ci, th.Thread.ID)
	var out string
	for _, r := range h.fake.Requests() {
		if o, ok := r.ToolOutput(); ok {
			out = o
		}
	}
	if !strings.Contains(strings.ToLower(out), "rejected") {
		t.Fatalf("after the timeout the model got %q", out)
	}
}
