package e2e

import (
	"testing"
	"time"
)

// fleetRow is a row of `sessions --json` on the default host, or nil when it is not listed.
func fleetRow(t *testing.T, h *host, id string) *struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	WaitingOnApproval bool   `json:"waitingOnApproval"`
} {
	t.Helper()
	var list struct {
		Hosts []struct {
			Host     string `json:"host"`
			Sessions []struct {
				ID                string `json:"id"`
				Status            string `json:"status"`
				WaitingOnApproval bool   `json:"waitingOnApproval"`
			} `json:"sessions"`
		} `json:"hosts"`
	}
	h.operator("sessions", "--host", "gateway:local", "--json").decode(t, &list)
	for _, hs := range list.Hosts {
		for i := range hs.Sessions {
			if hs.Sessions[i].ID == id {
				return &hs.Sessions[i]
			}
		}
	}
	return nil
}

// Issue 28 (fleet mark): a codexhost thread whose approval waits in the runtime shows in the
// fleet as active and waiting on approval, like a session of another Codex client; once the
// approval is answered the mark is gone.
func TestApprovalWaitingThreadIsMarkedInTheFleet(t *testing.T) {
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo fleet-mark]]")
	a := pendingApproval(t, h, ci, th.Thread.ID)
	deadline := time.Now().Add(30 * time.Second)
	row := fleetRow(t, h, th.Thread.ID)
	for (row == nil || !row.WaitingOnApproval) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		row = fleetRow(t, h, th.Thread.ID)
	}
	if row == nil || !row.WaitingOnApproval || row.Status != "active" {
		t.Fatalf("the fleet row of a thread waiting on approval: %+v", row)
	}
	h.asClient(ci, "approve", a.ID, "--decision", "decline", "--json").decode(t, new(any))
	h.waitCompleted(ci, th.Thread.ID)
	if row := fleetRow(t, h, th.Thread.ID); row == nil || row.WaitingOnApproval {
		t.Fatalf("the fleet row after the answer: %+v", row)
	}
}

// Issue 28 (transcript): thread read --view messages shows the approval asked in the turn,
// with the decision, who answered and when.
func TestApprovalDecisionsShowInTheTranscript(t *testing.T) {
	h := startHost(t, hostConfig{})
	ci := h.addClient("ci")
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo in-the-transcript]]")
	a := pendingApproval(t, h, ci, th.Thread.ID)
	h.asClient(ci, "approve", a.ID, "--decision", "decline", "--json").decode(t, new(any))
	h.waitCompleted(ci, th.Thread.ID)
	var read struct {
		Approvals []struct {
			ID        string `json:"id"`
			Decision  string `json:"decision"`
			DecidedBy string `json:"decidedBy"`
			DecidedAt string `json:"decidedAt"`
			Command   string `json:"command"`
		} `json:"approvals"`
	}
	h.asClient(ci, "thread", "read", th.Thread.ID, "--view", "messages").decode(t, &read)
	if len(read.Approvals) != 1 || read.Approvals[0].ID != a.ID || read.Approvals[0].Decision != "decline" ||
		read.Approvals[0].DecidedBy != "ci" || read.Approvals[0].DecidedAt == "" || read.Approvals[0].Command != a.Command {
		t.Fatalf("thread read --view messages approvals: %+v", read.Approvals)
	}
}
