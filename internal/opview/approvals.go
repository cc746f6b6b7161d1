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

func untilText(t, now time.Time) string {
	d := t.Sub(now).Round(time.Second)
	if d <= 0 {
		return "now"
	}
	return "in " + d.String()
}
