package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The tasks pane lists handoff tasks as `codexhost task status` does (task.status): each
// task's risk (high stands out), allowed operations, status, test results and changed-file
// count. Enter opens a task's transcript (its thread id is the task id) or, for a high-risk
// task held for the operator, asks to confirm it (task.confirm); x cancels (task.cancel).

// taskLimit is the tasks task.status lists: running first, then the newest.
const taskLimit = 100

func tasksSpec() listSpec[api.TaskInfo] {
	return listSpec[api.TaskInfo]{
		title: "Tasks",
		empty: "no tasks; codexhost task start runs one from a handoff",
		load: func(c *common) ([]api.TaskInfo, error) {
			res, err := call(c, api.TaskStatus, api.TaskStatusParams{Limit: taskLimit})
			return res.Tasks, err
		},
		key:    func(t api.TaskInfo) string { return t.TaskID },
		thread: func(t api.TaskInfo) string { return t.TaskID },
		row:    taskRow,
		keys:   func(c *common) []key.Binding { return []key.Binding{c.keys.Tasks.Cancel} },
		detail: func(c *common, t api.TaskInfo) string {
			s := "root " + oneLine(t.Root) + " · sandbox " + oneLine(t.Sandbox)
			if t.Network {
				s += " · network"
			}
			if t.Reason != "" {
				s += " · " + oneLine(t.Reason)
			}
			return s
		},
	}
}

// taskRow: risk, status, tests, changed files, operations, then the title or the id (cut first).
func taskRow(c *common, t api.TaskInfo, width int) string {
	st := c.st
	risk := st.Muted.Render(pad(oneLine(t.RiskLevel), 6))
	if t.RiskLevel == "high" {
		risk = st.Danger.Render(pad(st.G.Danger+"high", 6))
	}
	return truncate(risk+" "+taskStatus(c, t.Status)+" "+taskTests(c, t.TestsPassed)+" "+
		pad(plural(t.ChangedFiles, "file", "files"), 8)+" "+st.Muted.Render(strings.Join(t.Operations, ","))+" "+
		taskName(c, t), width)
}

func taskName(c *common, t api.TaskInfo) string {
	if t.Handoff != nil && t.Handoff.Title != "" {
		return oneLine(t.Handoff.Title)
	}
	return c.short(t.TaskID)
}

// taskAskers names who started the task and who created its handoff, when they differ.
func taskAskers(t api.TaskInfo) string {
	by := oneLine(t.StartedBy)
	if by == "" {
		by = "unknown"
	}
	if t.Handoff != nil && t.Handoff.CreatedBy != "" && t.Handoff.CreatedBy != t.StartedBy {
		by += " (handoff created by " + oneLine(t.Handoff.CreatedBy) + ")"
	}
	return by
}

// taskStatus is a task status for people, at a fixed width.
func taskStatus(c *common, status string) string {
	st := c.st
	const w = 10
	switch status {
	case model.TaskRunning:
		return st.BadgeActive.Render(pad(c.spinner()+" running", w))
	case model.TaskAwaitingConfirmation:
		return st.BadgeWaiting.Render(pad("◆ confirm?", w))
	case model.TaskCompleted:
		return st.OK.Render(pad("✓ done", w))
	case model.TaskFailed:
		return st.BadgeError.Render(pad("✗ error", w))
	case model.TaskTimedOut:
		return st.BadgeError.Render(pad("✗ timeout", w))
	case model.TaskCancelled, model.TaskInterrupted:
		return st.BadgeIdle.Render(pad("■ "+status, w))
	}
	return pad(oneLine(status), w)
}

func taskTests(c *common, passed *bool) string {
	switch {
	case passed == nil:
		return c.st.Muted.Render(pad("tests -", 8))
	case *passed:
		return c.st.OK.Render(pad("tests ✓", 8))
	}
	return c.st.Danger.Render(pad("tests ✗", 8))
}

// Task actions mirror `codexhost task cancel ID --confirm` and `task confirm ID`.
type (
	taskCancelAction  struct{ t api.TaskInfo }
	taskConfirmAction struct{ t api.TaskInfo }
	taskDoneMsg       struct {
		job  int
		verb string
		task api.TaskInfo
		err  error
	}
)

func (a taskCancelAction) label(c *common) string  { return "cancelling task " + taskName(c, a.t) }
func (a taskConfirmAction) label(c *common) string { return "confirming task " + taskName(c, a.t) }

// taskKey handles the tasks pane's own keys before the generic ones.
func (a *App) taskKey(k tea.KeyMsg) (tea.Cmd, bool) {
	km := a.c.keys
	if a.focus != paneTasks || !key.Matches(k, km.Tasks.Cancel, km.List.Select) {
		return nil, false
	}
	t, ok := a.tasks.current()
	if !ok {
		return nil, false
	}
	name := taskName(a.c, t)
	switch {
	case key.Matches(k, km.Tasks.Cancel):
		if t.Status != model.TaskRunning && t.Status != model.TaskAwaitingConfirmation {
			return status(levelInfo, fmt.Sprintf("nothing to cancel: task %s is %s", name, t.Status)), true
		}
		a.confirm.Show("Cancel the task?", []string{
			fmt.Sprintf("Cancel task %s (%s, %s risk)?", name, t.Status, t.RiskLevel),
			"Its turn is interrupted and the task ends as cancelled, recorded as cancelled by you. Tests do not run.",
		}, "cancel the task", taskCancelAction{t: t}, true, false)
		return nil, true
	case t.Status == model.TaskAwaitingConfirmation:
		lines := []string{
			fmt.Sprintf("Task %s waits for your confirmation: its handoff is %s risk.", name, t.RiskLevel),
			"Task id: " + oneLine(t.TaskID),
			"Asked by: " + taskAskers(t),
			"Operations: " + strings.Join(t.Operations, ", "),
			"Root: " + oneLine(t.Root) + " (sandbox " + oneLine(t.Sandbox) + ")",
			"Confirming starts it now; a confirmed high-risk task also gets network access.",
		}
		a.confirm.Show("Confirm a high-risk task?", lines, "confirm and start", taskConfirmAction{t: t}, true, false)
		return nil, true
	}
	return nil, false // enter on any other task opens its transcript
}

func (a *App) performTask(job int, act action) tea.Cmd {
	c := a.c
	switch act := act.(type) {
	case taskCancelAction:
		return func() tea.Msg {
			_, err := call(c, api.TaskCancel, api.TaskCancelParams{TaskID: act.t.TaskID, Confirm: true})
			return taskDoneMsg{job: job, verb: "cancelled", task: act.t, err: err}
		}
	case taskConfirmAction:
		return func() tea.Msg {
			_, err := call(c, api.TaskConfirm, api.TaskConfirmParams{TaskID: act.t.TaskID})
			return taskDoneMsg{job: job, verb: "confirmed", task: act.t, err: err}
		}
	}
	return nil
}

func (m taskDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	name := taskName(a.c, m.task)
	if m.err != nil {
		a.status.set(levelError, "task "+name+": "+errText(m.err))
	} else {
		a.status.set(levelOK, m.verb+" task "+name)
	}
	return a.broadcast(threadChangedMsg{id: m.task.TaskID})
}
