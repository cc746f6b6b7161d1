package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 28 (watch on approval): `thread watch T --on approval` notifies the client once, in
// its event log, when an approval of T waits: result needsApproval with the approval's id,
// which the client then answers.
func TestApprovalWatchNotifiesTheClient(t *testing.T) {
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo watched-approval]]")
	var reg struct {
		State string `json:"state"`
		Watch struct {
			On string `json:"on"`
		} `json:"watch"`
	}
	h.asClient(ci, "thread", "watch", th.Thread.ID, "--on", "approval", "--notify", "client:ci").decode(t, &reg)
	if reg.State != "watching" || reg.Watch.On != "approval" {
		t.Fatalf("thread watch --on approval: %+v", reg)
	}
	a := pendingApproval(t, h, ci, th.Thread.ID)
	events := h.asClient(ci, "client", "events", "--follow", "--timeout-ms", "30000")
	var ev struct {
		Result   string `json:"result"`
		Approval string `json:"approval"`
		Thread   string `json:"thread"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(strings.TrimSpace(events.stdout), "\n", 2)[0]), &ev); err != nil || ev.Result != "needsApproval" ||
		ev.Approval != a.ID || ev.Thread != th.Thread.ID {
		t.Fatalf("client events after the request: %s (%v)", events, err)
	}
	h.asClient(ci, "approve", a.ID, "--decision", "accept", "--json").decode(t, new(any))
	h.waitCompleted(ci, th.Thread.ID)
	if e := h.asClient(ci, "thread", "watch", th.Thread.ID, "--on", "input").failure(t); e.Code != "INVALID_ARGUMENT" {
		t.Fatalf("an unknown condition: %+v", e)
	}
}
