package opview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Approvals writes approvals for people: one line each, then what is asked.
func Approvals(w io.Writer, list []model.Approval, now time.Time) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no approvals")
		return
	}
	for _, a := range list {
		Approval(w, a, now)
	}
}

// Approval writes one approval for people.
func Approval(w io.Writer, a model.Approval, now time.Time) {
	state := a.State
	switch a.State {
	case model.ApprovalPending:
		state = "pending, declined " + untilText(a.ExpiresAt, now) + " unless answered"
		if a.Lease != nil && now.Before(a.Lease.Expires) {
			state += fmt.Sprintf("; held by %s (fence %d)", a.Lease.Holder, a.Lease.Fence)
		}
		if a.Reasked {
			state += "; asked again after it was lost"
		}
	case model.ApprovalLost:
		state = LostText(a)
	default:
		state += ": " + a.Decision + " by " + a.DecidedBy
	}
	fmt.Fprintf(w, "%s  thread %s  %s  %s\n", a.ID, a.ThreadID, a.Kind, state)
	if a.Command != "" {
		fmt.Fprintf(w, "    command: %s\n", a.Command)
	}
	if a.Cwd != "" {
		fmt.Fprintf(w, "    cwd:     %s\n", a.Cwd)
	}
	if a.Reason != "" {
		fmt.Fprintf(w, "    reason:  %s\n", a.Reason)
	}
	if a.State == model.ApprovalPending {
		fmt.Fprintf(w, "    answer:  codexhost approve %s --decision %s\n", a.ID, strings.Join(a.Decisions, "|"))
	}
}

// LostText says what became of a lost approval: who went away, and how the turn ended.
func LostText(a model.Approval) string {
	s := "lost: " + a.DecidedBy + " before an answer reached Codex"
	if a.Outcome != "" {
		return s + "; the turn ended " + a.Outcome
	}
	return s + "; the turn's end is not known yet"
}

func untilText(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	if d <= 0 {
		return "now"
	}
	return "in " + d.String()
}

// TranscriptLine is an approval as a transcript shows it beside its turn's messages: what was
// asked, then the decision, who made it and when (or that it waits, or was lost).
func TranscriptLine(a model.Approval, loc *time.Location) string {
	asked := a.Kind
	if a.Command != "" {
		asked += " " + a.Command
	}
	var out string
	switch a.State {
	case model.ApprovalPending:
		out = "pending, declined at " + a.ExpiresAt.In(loc).Format("15:04:05") + " unless answered"
	case model.ApprovalLost:
		out = LostText(a)
	default:
		out = a.Decision + " by " + a.DecidedBy
		if a.DecidedAt != nil {
			out += " at " + a.DecidedAt.In(loc).Format("2006-01-02 15:04:05")
		}
	}
	return fmt.Sprintf("approval %s: %s: %s", a.ID, asked, out)
}
