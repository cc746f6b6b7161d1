package ui

import (
	"strings"

	"github.com/codexhost/codexhost/model"
)

// What needs the person, counted for the status bar, which shows it at any size: at 80×24 the
// tasks and undeliverable panes are not on screen, so without it nothing says a task waits
// for a confirmation or a watch could not be delivered.

// attention counts the tasks awaiting confirmation and the undeliverable watches.
func (a *App) attention() (awaiting, undeliverable int) {
	for _, t := range a.tasks.items {
		if t.Status == model.TaskAwaitingConfirmation {
			awaiting++
		}
	}
	return awaiting, len(a.undeliv.items)
}

// attentionParts are the status bar's compact marks, pane keys included so that the person
// knows where to look: "◆1 confirm (6)", "!2 undelivered (5)".
func (s *statusBar) attentionParts() []string {
	st := s.c.st
	g := s.c.keys.Global
	var parts []string
	if s.approvals > 0 {
		parts = append(parts, st.BadgeWaiting.Render("⚑"+itoa(s.approvals)+" approve")+st.Muted.Render(" ("+g.Approvals.Help().Key+")"))
	}
	if s.awaiting > 0 {
		parts = append(parts, st.BadgeWaiting.Render("◆"+itoa(s.awaiting)+" confirm")+st.Muted.Render(" ("+g.Tasks.Help().Key+")"))
	}
	if s.undeliverable > 0 {
		parts = append(parts, st.BadgeError.Render(strings.TrimSpace(st.G.Danger)+itoa(s.undeliverable)+" undelivered")+st.Muted.Render(" ("+g.Undeliverable.Help().Key+")"))
	}
	return parts
}
