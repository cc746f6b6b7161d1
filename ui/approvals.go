package ui

import (
	"slices"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Approvals in the app: the status bar counts what native threads ask a person (at any
// size), and the approvals key opens the oldest request in full — command, cwd, reason, the
// decisions Codex offers — to answer it (approval.answer) or leave it pending. The list is
// read again on every approval.changed event, so a request answered elsewhere goes away.

type approvalsState struct {
	pending []model.Approval
	open    bool
	idx     int
	// openID is the request on screen: a reload keeps showing it, wherever it moved, and
	// never slides another under a key the person pressed for this one.
	openID string
}

type approvalsMsg struct {
	list []model.Approval
	err  error
}

type approvalAnsweredMsg struct {
	a   model.Approval
	err error
}

func (a *App) loadApprovals() tea.Cmd {
	c := a.c
	return func() tea.Msg {
		res, err := call(c, api.ApprovalList, api.ApprovalListParams{Pending: true})
		return approvalsMsg{list: res.Approvals, err: err}
	}
}

func (m approvalsMsg) apply(a *App) tea.Cmd {
	if m.err != nil {
		return nil // a runtime without approvals, or a caller who may not list them: nothing to count
	}
	s := &a.approvals
	s.pending = m.list
	s.idx = min(s.idx, max(len(s.pending)-1, 0))
	if !s.open {
		return nil
	}
	i := slices.IndexFunc(s.pending, func(p model.Approval) bool { return p.ID == s.openID })
	if i < 0 {
		// Decided elsewhere (another terminal, a client, the timeout): close rather than show
		// the next request where the person was reading this one.
		s.open = false
		a.status.set(levelOK, "approval "+s.openID+" was decided elsewhere")
		return nil
	}
	s.idx = i
	return nil
}

func (m approvalAnsweredMsg) apply(a *App) tea.Cmd {
	if m.err != nil {
		a.status.set(levelError, "approval: "+errText(m.err))
	} else {
		a.status.set(levelOK, "approval "+m.a.ID+": "+m.a.Decision)
	}
	return a.loadApprovals()
}

// openApproval shows the oldest pending request, or says there is none.
func (a *App) openApproval() tea.Cmd {
	if len(a.approvals.pending) == 0 {
		a.status.set(levelOK, "no approval waits for an answer")
		return a.loadApprovals()
	}
	a.approvals.open, a.approvals.idx, a.approvals.openID = true, 0, a.approvals.pending[0].ID
	return nil
}

// approvalKey answers the open request, moves to the next, or closes the dialog.
func (a *App) approvalKey(k tea.KeyMsg) tea.Cmd {
	s := &a.approvals
	km := a.c.keys.Approval
	cur := s.pending[s.idx]
	decision := ""
	switch {
	case key.Matches(k, km.Accept):
		decision = model.DecisionAccept
	case key.Matches(k, km.AcceptSession) && slices.Contains(cur.Decisions, model.DecisionAcceptForSession):
		decision = model.DecisionAcceptForSession
	case key.Matches(k, km.Decline):
		decision = model.DecisionDecline
	case key.Matches(k, km.Cancel):
		decision = model.DecisionCancel
	case key.Matches(k, km.Next):
		s.idx = (s.idx + 1) % len(s.pending)
		s.openID = s.pending[s.idx].ID
		return nil
	case key.Matches(k, km.Close):
		s.open = false
		return nil
	default:
		return nil // a stray key answers nothing
	}
	s.open = false
	c := a.c
	return func() tea.Msg {
		res, err := call(c, api.ApprovalAnswer, api.ApprovalAnswerParams{ID: cur.ID, Decision: decision})
		return approvalAnsweredMsg{a: res.Approval, err: err}
	}
}

// approvalView draws the open request.
func (a *App) approvalView(w int) []string {
	st := a.c.st
	s := a.approvals
	cur := s.pending[s.idx]
	bw := min(w, 90)
	inner := bw - 4
	var body []string
	add := func(label, v string) {
		if v == "" {
			return
		}
		for _, l := range wrap(label+oneLine(v), inner) {
			body = append(body, l)
		}
	}
	add("thread  ", a.c.short(cur.ThreadID))
	add("kind    ", cur.Kind)
	add("command ", cur.Command)
	add("cwd     ", cur.Cwd)
	add("reason  ", cur.Reason)
	add("declined in ", until(a.c.now(), cur.ExpiresAt)+" unless answered")
	km := a.c.keys.Approval
	keys := []key.Binding{km.Accept}
	if slices.Contains(cur.Decisions, model.DecisionAcceptForSession) {
		keys = append(keys, km.AcceptSession)
	}
	keys = append(keys, km.Decline, km.Cancel, km.Close)
	if len(s.pending) > 1 {
		keys = append(keys, km.Next)
	}
	body = append(body, "")
	body = append(body, keyLines(keys, inner, st.Accent.Render, st.Muted.Render(" · "))...)
	title := "Approve? (" + strconv.Itoa(s.idx+1) + " of " + strconv.Itoa(len(s.pending)) + ")"
	return dialogBox(title, body, bw, st.DialogDanger, st.TitleFocused)
}

// keyLines lays the keys out in lines of at most w cells, breaking between keys, so that at
// 80 columns none is cut off (tab, the last, was).
func keyLines(keys []key.Binding, w int, accent func(...string) string, sep string) []string {
	var lines []string
	line := ""
	for _, b := range keys {
		part := accent(b.Help().Key) + " " + b.Help().Desc
		if line != "" && ansiWidth(line)+ansiWidth(sep)+ansiWidth(part) > w {
			lines, line = append(lines, line), ""
		}
		if line != "" {
			line += sep
		}
		line += part
	}
	return append(lines, line)
}
