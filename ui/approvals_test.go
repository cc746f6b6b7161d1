package ui

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

const idApprovalThread = "019a4000-0000-7000-8000-0000000000a1"

// approvalsFixture serves two pending approvals and records the answers; an answered one
// leaves the list.
func approvalsFixture(rt *fakeRuntime) *sync.Map {
	answered := &sync.Map{}
	pending := func() []model.Approval {
		var out []model.Approval
		for _, a := range []model.Approval{
			{ID: "ap-1", ThreadID: idApprovalThread, Kind: model.ApprovalCommand, Command: "/bin/bash -lc 'touch f'", Cwd: "/src/app",
				Reason: "needs to write", Decisions: []string{"accept", "cancel"}, State: model.ApprovalPending, ExpiresAt: epoch.Add(10 * time.Minute)},
			{ID: "ap-2", ThreadID: idApprovalThread, Kind: model.ApprovalFileChange, Decisions: []string{"accept", "acceptForSession", "decline", "cancel"},
				State: model.ApprovalPending, ExpiresAt: epoch.Add(5 * time.Minute)},
		} {
			if _, done := answered.Load(a.ID); !done {
				out = append(out, a)
			}
		}
		return out
	}
	rt.on(api.MethodApprovalList, func(json.RawMessage) (any, error) { return api.ApprovalListResult{Approvals: pending()}, nil })
	rt.on(api.MethodApprovalAnswer, func(raw json.RawMessage) (any, error) {
		var p api.ApprovalAnswerParams
		_ = json.Unmarshal(raw, &p)
		answered.Store(p.ID, p.Decision)
		return api.ApprovalResult{Approval: model.Approval{ID: p.ID, Decision: p.Decision, State: model.ApprovalAnswered}}, nil
	})
	return answered
}

// At 80×24 the status bar counts the requests that wait; the approvals key opens the oldest
// in full (command, cwd, reason, deadline, the keys of the decisions offered), a decision not
// offered does nothing, another request is a key away, and an answer goes to approval.answer
// and takes the request off the count; an approval.changed event reads the list again.
func TestApprovalsCountedOpenedAndAnswered(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	answered := approvalsFixture(rt)
	a := newTestApp(t, rt, 80, 24)
	mustContain(t, a.view(), "⚑2 approve (!)")

	a.press(a.km.Global.Approvals)
	v := a.view()
	mustContain(t, v, "Approve? (1 of 2)", "touch f", "/src/app", "needs to write", "in 10m", "y accept", "n decline", "c cancel the turn")
	mustNotContain(t, v, "accept for the session") // not offered for this one
	a.press(a.km.Approval.AcceptSession)
	if _, done := answered.Load("ap-1"); done || !a.approvals.open {
		t.Fatal("a decision not offered answered the request")
	}
	a.press(a.km.Approval.Next)
	mustContain(t, a.view(), "Approve? (2 of 2)", "fileChange", "s accept for the session")
	a.press(a.km.Approval.AcceptSession)
	if d, _ := answered.Load("ap-2"); d != "acceptForSession" {
		t.Fatalf("answered %v", d)
	}
	mustContain(t, a.view(), "⚑1 approve", "approval ap-2: accept")

	// Answered elsewhere: the event reads the list again and the mark goes.
	answered.Store("ap-1", "decline")
	a.send(EventMsg(api.Event{Type: api.EventApproval, Thread: idApprovalThread, Status: model.ApprovalAnswered}))
	mustNotContain(t, a.view(), "approve (!)")
	a.press(a.km.Global.Approvals)
	if a.approvals.open {
		t.Fatal("the dialog opened with nothing pending")
	}
}

// A request decided elsewhere while the dialog shows it never puts another request under the
// person's keys: a reload keeps the request on screen where it moved, and closes the dialog
// when that request itself was decided, so a y meant for it answers nothing else.
func TestApprovalDialogKeepsItsRequestAcrossReloads(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	answered := approvalsFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.press(a.km.Global.Approvals)
	a.press(a.km.Approval.Next)
	mustContain(t, a.view(), "Approve? (2 of 2)", "fileChange")

	// The one before it is answered in another terminal: still the file change, now 1 of 1.
	answered.Store("ap-1", "decline")
	a.send(EventMsg(api.Event{Type: api.EventApproval, Thread: idApprovalThread, Status: model.ApprovalAnswered}))
	mustContain(t, a.view(), "Approve? (1 of 1)", "fileChange")

	// Back to two pending, the dialog on the command; then the command is answered elsewhere.
	answered.Delete("ap-1")
	a.send(EventMsg(api.Event{Type: api.EventApproval, Thread: idApprovalThread, Status: model.ApprovalPending}))
	a.press(a.km.Approval.Next)
	mustContain(t, a.view(), "Approve? (1 of 2)", "touch f")
	answered.Store("ap-1", "decline")
	a.send(EventMsg(api.Event{Type: api.EventApproval, Thread: idApprovalThread, Status: model.ApprovalAnswered}))
	v := a.view()
	mustNotContain(t, v, "Approve? (")
	mustContain(t, v, "ap-1 was decided elsewhere")
	a.press(a.km.Approval.Accept)
	if d, _ := answered.Load("ap-2"); d != nil {
		t.Fatalf("a key meant for ap-1 answered ap-2 with %v", d)
	}
}

// At 80×24 every key of the dialog shows: the line breaks between keys instead of cutting off
// the last (tab, to the next request).
func TestApprovalDialogKeysFitAt80Columns(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	approvalsFixture(rt)
	a := newTestApp(t, rt, 80, 24)
	a.press(a.km.Global.Approvals)
	a.press(a.km.Approval.Next) // the file change offers the most decisions
	mustContain(t, a.view(), "s accept for the session", "esc leave it pending", "tab next request")
}
