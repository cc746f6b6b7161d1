package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkApprovalLatency times, for a native turn under --approval untrusted, the way from
// Codex's request to a client seeing it, and from the answer to the model's follow-up request
// (the command ran and its output went back to the model), against the real App Server.
// ms-to-seen includes the polling client (`codexhost approvals`, one process per look).
func BenchmarkApprovalLatency(b *testing.B) {
	h := startHost(b, hostConfig{})
	ci := h.addClient("ci")
	var seen, answered time.Duration
	n := 0
	for b.Loop() {
		n++
		before := len(h.fake.Requests())
		th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo bench "+strconv.Itoa(n)+"]]")
		var id string
		for id == "" {
			var res struct {
				Approvals []approvalView `json:"approvals"`
			}
			h.asClient(ci, "approvals", "--pending", "--json").decode(b, &res)
			for _, a := range res.Approvals {
				if a.ThreadID == th.Thread.ID {
					id = a.ID
				}
			}
		}
		asked := h.fake.Requests()[before].At // the request Codex answered with the tool call
		seen += time.Since(asked)
		start := time.Now()
		h.asClient(ci, "approve", id, "--decision", "accept", "--json").decode(b, &struct{}{})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		reqs, err := h.fake.WaitRequests(ctx, before+2)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		answered += reqs[before+1].At.Sub(start)
		h.waitCompleted(ci, th.Thread.ID)
	}
	b.ReportMetric(float64(seen.Milliseconds())/float64(n), "ms-to-seen")
	b.ReportMetric(float64(answered.Milliseconds())/float64(n), "ms-answer-to-model")
}
