// Package opview turns the runtime API's list results into the operator CLI's tables: which
// columns each list has, what each cell shows and how it is coloured.
package opview

import (
	"strings"

	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Columns of each table; --sort takes their names.
var (
	SessionColumns = []table.Column{{Name: "ID"}, {Name: "Status"}, {Name: "Updated"}, {Name: "Source", Drop: 1}, {Name: "Cwd", Fit: true, Drop: 2}, {Name: "Title", Fit: true}}
	HostColumns    = []table.Column{{Name: "Host"}, {Name: "Kind", Drop: 2}, {Name: "Capabilities", Fit: true, Drop: 1}, {Name: "Health", Fit: true}}
	TaskColumns    = []table.Column{{Name: "Task"}, {Name: "Status", Fit: true}, {Name: "Risk"}, {Name: "Operations", Fit: true, Drop: 2}, {Name: "Tests"}, {Name: "Changed", Drop: 3}, {Name: "Created"}, {Name: "Handoff", Drop: 1}}
	HandoffColumns = []table.Column{{Name: "ID"}, {Name: "Risk"}, {Name: "Operations", Fit: true, Drop: 2}, {Name: "Created"}, {Name: "Dir", Fit: true, Drop: 1}, {Name: "Title", Fit: true}}
)

// Sessions is one host's sessions.
func Sessions(ss []api.CatalogSession) table.Table {
	t := table.Table{Columns: SessionColumns, Empty: "no sessions"}
	for _, s := range ss {
		word := model.StatusWord(s.Status)
		status := table.Styled(word, statusStyle(word))
		if s.WaitingOnApproval {
			status = table.Styled(word+" (waiting on approval)", table.Warn)
		}
		title := table.Text(s.Title + LinkNote(s.ID, s.SessionLink))
		if s.Title == "" {
			title = table.Styled("(untitled)"+LinkNote(s.ID, s.SessionLink), table.Muted)
		}
		t.Rows = append(t.Rows, []table.Cell{table.Text(s.ID), status, table.At(s.UpdatedAt), table.Text(s.Source), table.Text(s.Cwd), title})
	}
	return t
}

// Hosts is the catalog's hosts, the default one marked.
func Hosts(hs []api.CatalogHost) table.Table {
	t := table.Table{Columns: HostColumns, Empty: "no hosts"}
	for _, h := range hs {
		id := h.ID
		if h.Default {
			id += " (default)"
		}
		health := table.Styled(h.Health.State, statusStyle(h.Health.State))
		if h.Health.State == api.CatalogHealthError {
			health = table.Styled(h.Health.Code+": "+h.Health.Message, table.Bad)
		}
		t.Rows = append(t.Rows, []table.Cell{table.Text(id), table.Text(h.Kind), table.Text(strings.Join(h.Capabilities, ",")), health})
	}
	return t
}

// Tasks is running and recent tasks.
func Tasks(ts []api.TaskInfo) table.Table {
	t := table.Table{Columns: TaskColumns, Empty: "no tasks"}
	for _, x := range ts {
		tests := table.Text("")
		if x.TestsPassed != nil {
			tests = map[bool]table.Cell{true: table.Styled("passed", table.Good), false: table.Styled("FAILED", table.Bad)}[*x.TestsPassed]
		}
		t.Rows = append(t.Rows, []table.Cell{table.Text(x.TaskID), table.Styled(x.Status, statusStyle(x.Status)), risk(x.RiskLevel),
			table.Text(strings.Join(x.Operations, ",")), tests, table.Int(int64(x.ChangedFiles)), table.At(x.CreatedAt), table.Text(x.HandoffID)})
	}
	return t
}

// Handoffs is handoffs, newest first as the runtime lists them.
func Handoffs(hs []api.HandoffSummary) table.Table {
	t := table.Table{Columns: HandoffColumns, Empty: "no handoffs"}
	for _, h := range hs {
		t.Rows = append(t.Rows, []table.Cell{table.Text(h.HandoffID), risk(h.RiskLevel), table.Text(strings.Join(h.Operations, ",")),
			table.At(h.CreatedAt), table.Text(h.Dir), table.Text(h.Title)})
	}
	return t
}

func risk(level string) table.Cell {
	if level == "high" {
		return table.Styled("HIGH", table.Warn)
	}
	return table.Text(level)
}

// statusStyle colours the status words of sessions, tasks and hosts.
func statusStyle(s string) table.Style {
	switch s {
	case "idle", "ok", "healthy", "completed", "succeeded", "done":
		return table.Good
	case "active", "running", "inProgress", "starting":
		return table.Busy
	case "awaitingConfirmation", "waiting", "degraded", "unknown", "pending":
		return table.Warn
	case "error", "failed", "systemError", "interrupted", "timedOut":
		return table.Bad
	case "notLoaded", "stored", "cancelled":
		return table.Muted
	}
	return table.Plain
}

// LinkNote says which codexhost thread drives a session and which source a branch
// continues (api.SessionLink), for people; "" when nothing links it. id is the session's own.
func LinkNote(id string, l api.SessionLink) string {
	note := ""
	switch {
	case l.CodexhostThread == "":
	case l.CodexhostThread == id:
		note = "codexhost thread"
	default:
		note = "codexhost thread " + l.CodexhostThread
	}
	if l.BranchOf != nil {
		if note != "" {
			note += ", "
		}
		note += "branch of " + l.BranchOf.Thread + " on " + l.BranchOf.Host
	}
	if note == "" {
		return ""
	}
	return " [" + note + "]"
}
