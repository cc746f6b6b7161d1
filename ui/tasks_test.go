package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

const (
	idTaskHigh = "019a3000-0000-7000-8000-0000000000f1"
	idTaskRun  = "019a3000-0000-7000-8000-0000000000f2"
	idTaskDone = "019a3000-0000-7000-8000-0000000000f3"
)

func tasksFixture(rt *fakeRuntime) {
	yes := true
	rt.on(api.MethodTaskStatus, func(json.RawMessage) (any, error) {
		return api.TaskStatusResult{Tasks: []api.TaskInfo{
			{TaskID: idTaskHigh, Status: model.TaskAwaitingConfirmation, RiskLevel: "high", Operations: []string{"read", "write", "run_tests"},
				Root: "/src/app", Sandbox: "workspace-write", StartedBy: "client:bot", Handoff: &api.HandoffSummary{Title: "rotate the keys", CreatedBy: "client:planner"}},
			{TaskID: idTaskRun, Status: model.TaskRunning, RiskLevel: "medium", Operations: []string{"read", "write"}, Root: "/src/app", Sandbox: "workspace-write"},
			{TaskID: idTaskDone, Status: model.TaskCompleted, RiskLevel: "low", Operations: []string{"read", "create_artifact"}, Root: "/src/docs",
				Sandbox: "workspace-write", ChangedFiles: 3, TestsPassed: &yes, Handoff: &api.HandoffSummary{Title: "write the demo"}},
		}}, nil
	})
	rt.on(api.MethodTaskCancel, func(json.RawMessage) (any, error) { return api.TaskStartResult{}, nil })
	rt.on(api.MethodTaskConfirm, func(json.RawMessage) (any, error) { return api.TaskStartResult{}, nil })
}

// The tasks pane lists each task's risk (high stands out), status, tests, changed files and
// operations; enter opens a task's transcript, x cancels after asking, and a high-risk task
// held for the operator asks to be confirmed, showing its risk, operations and root.
func TestTasksPaneListsTasksCancelsAndConfirmsHighRisk(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	tasksFixture(rt)
	a := newTestApp(t, rt, 200, 50)
	a.press(a.km.Global.Tasks)
	v := a.tasks.View()
	mustContain(t, v, "! high", "◆ confirm?", "rotate the keys", "read,write,run_tests",
		"medium", a.c.spinner()+" running", "019a3000…f2",
		"low", "✓ done", "tests ✓", "3 files", "write the demo", "root /src/app")

	// Enter on the awaiting high-risk task: the confirmation dialog.
	a.press(a.km.List.Select)
	d := strings.Join(a.confirm.lines, " ")
	if !a.confirm.open {
		t.Fatal("no confirmation dialog")
	}
	mustContain(t, d, "high risk", "read, write, run_tests", "/src/app", "network access")
	a.press(a.km.Dialog.Confirm)
	if calls := callsTo[api.TaskConfirmParams](rt, api.MethodTaskConfirm); len(calls) != 1 || calls[0].TaskID != idTaskHigh {
		t.Fatalf("confirm calls %+v", calls)
	}

	// x on the running task asks, and y cancels it with confirm true.
	a.press(a.km.List.Down)
	a.press(a.km.Tasks.Cancel)
	if !a.confirm.open {
		t.Fatal("x did not ask")
	}
	a.press(a.km.Dialog.Confirm)
	if calls := callsTo[api.TaskCancelParams](rt, api.MethodTaskCancel); len(calls) != 1 || calls[0].TaskID != idTaskRun || !calls[0].Confirm {
		t.Fatalf("cancel calls %+v", calls)
	}

	// A finished task: nothing to cancel, and enter opens its transcript.
	a.press(a.km.List.Down)
	a.press(a.km.Tasks.Cancel)
	if a.confirm.open {
		t.Fatal("x on a finished task asked")
	}
	mustContain(t, a.status.View(200), "nothing to cancel")
	a.press(a.km.List.Select)
	if a.focus != paneTranscript || a.transcript.ref.ID != idTaskDone {
		t.Fatalf("enter opened %q (focus %d)", a.transcript.ref.ID, a.focus)
	}
}

// The footer keeps ? help and q quit at every width the app runs at, with the rest cut.
func TestFooterKeepsHelpAndQuit(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	for _, w := range []int{80, 100, 120, 160} {
		a := newTestApp(t, rt, w, 30)
		f := a.footer()
		if ansiWidth(f) != w {
			t.Fatalf("footer at %d is %d wide", w, ansiWidth(f))
		}
		mustContain(t, f, "? help", "q quit")
	}
}

// Scenario: issue 24 item 5. At 80×24, where neither the tasks nor the undeliverable pane is
// on screen, the status bar marks a task awaiting confirmation and an undeliverable watch,
// naming the key of the pane that shows them.
func TestStatusBarMarksWhatNeedsThePerson(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	tasksFixture(rt)
	a := newTestApp(t, rt, 80, 24)
	lines := strings.Split(a.view(), "\n")
	bar := lines[len(lines)-2]
	mustContain(t, bar, "◆1 confirm ("+a.km.Global.Tasks.Help().Key+")", "!1 undelivered ("+a.km.Global.Undeliverable.Help().Key+")")
	if w := ansiWidth(bar); w > 80 {
		t.Fatalf("status bar %d wide: %q", w, bar)
	}
}

// Scenario: issue 24 item 5. The tasks pane reads the tasks again when a task's outcome is
// recorded (task.status), which comes after the turn's own end: before, the row said
// running until the next refresh.
func TestTasksPaneFollowsTaskStatusEvents(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	status := model.TaskRunning
	rt.on(api.MethodTaskStatus, func(json.RawMessage) (any, error) {
		return api.TaskStatusResult{Tasks: []api.TaskInfo{{TaskID: idTaskRun, Status: status, RiskLevel: "medium", Root: "/src/app", Sandbox: "workspace-write"}}}, nil
	})
	a := newTestApp(t, rt, 200, 50)
	a.press(a.km.Global.Tasks)
	mustContain(t, a.tasks.View(), "running")
	status = model.TaskCompleted
	a.send(EventMsg(api.Event{Type: api.EventTaskStatus, Thread: idTaskRun, Status: model.TaskCompleted}))
	mustContain(t, a.tasks.View(), "✓ done")
}
