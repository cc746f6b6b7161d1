package marker

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
)

// Decisions of a block.
const (
	Accepted = "accepted" // it ran (a gate outcome of a target may still be in its snapshot)
	Rejected = "rejected" // a gate refused it at execution; nothing changed
	Skipped  = "skipped"  // it never ran: invalid, over a limit, or its round was skipped
)

// The outcome types live in model so that the store can keep a run's outcomes.
type (
	Created    = model.MarkerCreated
	ThreadView = model.MarkerView
	Outcome    = model.MarkerOutcome
)

// Report is the follow-up message of one author turn.
type Report struct {
	Turn          string
	Outcomes      []Outcome
	DroppedFences int
	Truncated     bool
}

// SkippedOutcomes are the outcomes of the blocks Parse did not accept, in block order.
func SkippedOutcomes(p Parsed) []Outcome {
	var out []Outcome
	for _, b := range p.Blocks {
		if !b.Valid() {
			out = append(out, Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Decision: Skipped, Code: b.Skip, Detail: b.Detail, Targets: targetsOf(b)})
		}
	}
	return out
}

func targetsOf(b Block) []string {
	switch {
	case b.Read != nil:
		return append([]string(nil), b.Read.Targets...)
	case b.Target != "":
		return []string{b.Target}
	}
	return nil
}

// Text renders the report. Thread links are codex://threads/<id>; result text is quoted line
// by line so that nothing in it reads as a fence or as the report's own lines.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "codexhost marker report for turn %s: the blocks of that turn ran after it completed; this message is a new turn, not a return value.\n", r.Turn)
	for _, o := range sortedOutcomes(r.Outcomes) {
		writeOutcome(&b, o)
	}
	if r.DroppedFences > 0 {
		fmt.Fprintf(&b, "- %d more tool blocks after the first %d were ignored.\n", r.DroppedFences, MaxCandidates)
	}
	if r.Truncated {
		fmt.Fprintf(&b, "- The output was longer than %d bytes; blocks after that point were not read.\n", MaxScanBytes)
	}
	return strings.TrimRight(b.String(), "\n")
}

func sortedOutcomes(in []Outcome) []Outcome {
	out := append([]Outcome(nil), in...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Seq < out[j-1].Seq; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func writeOutcome(b *strings.Builder, o Outcome) {
	fmt.Fprintf(b, "%d. %s", o.Seq, o.Info)
	if o.Name != "" {
		fmt.Fprintf(b, " %q", o.Name)
	}
	fmt.Fprintf(b, ": %s", o.Decision)
	if o.Code != "" {
		fmt.Fprintf(b, " (%s)", o.Code)
	}
	if o.Detail != "" {
		fmt.Fprintf(b, ": %s", o.Detail)
	}
	if len(o.Targets) > 0 && o.Decision != Accepted {
		fmt.Fprintf(b, " [%s]", strings.Join(links(o.Targets), ", "))
	}
	b.WriteString("\n")
	if c := o.Created; c != nil {
		fmt.Fprintf(b, "   created %s on %s", link(c.ID), c.Harness)
		if c.Worktree != "" {
			fmt.Fprintf(b, " in its own worktree %s (branch %s)\n", c.Worktree, c.Branch)
		} else {
			fmt.Fprintf(b, " sharing your cwd %s (%s)\n", c.Cwd, sharedWhy(*c))
		}
	}
	if o.TurnID != "" {
		switch o.Tool {
		case ToolCancel:
			fmt.Fprintf(b, "   cancelled turn %s of %s\n", o.TurnID, links(o.Targets)[0])
		case ToolRetry:
			fmt.Fprintf(b, "   retried %s as turn %s\n", links(o.Targets)[0], o.TurnID)
		}
	}
	for _, v := range o.Views {
		writeView(b, v)
	}
}

func writeView(b *strings.Builder, v ThreadView) {
	fmt.Fprintf(b, "   - %s: ", link(v.ID))
	if v.Refusal != "" {
		fmt.Fprintf(b, "not read (%s): %s\n", v.Refusal, v.Detail)
		return
	}
	fmt.Fprintf(b, "status %s", v.Status)
	if v.TurnID != "" {
		fmt.Fprintf(b, ", last turn %s %s", v.TurnID, v.TurnStatus)
	}
	if v.TimedOut {
		b.WriteString(", still running at the timeout")
	}
	b.WriteString("\n")
	if v.Result != "" {
		b.WriteString("     result (newest characters):\n")
		for _, line := range strings.Split(strings.TrimRight(v.Result, "\n"), "\n") {
			fmt.Fprintf(b, "     | %s\n", line)
		}
	}
}

func links(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = link(id)
	}
	return out
}

// Tail returns the newest n characters of s (whole runes).
func Tail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[len(r)-n:])
}

// link is a thread's deep link; what is no thread id is shown quoted, as written.
func link(id string) string {
	if tid, err := model.ParseThreadID(id); err == nil {
		return tid.Link()
	}
	return fmt.Sprintf("%q", id)
}

// sharedWhy says why a created thread shares its author's cwd.
func sharedWhy(c Created) string {
	if c.Shared != "" {
		return c.Shared
	}
	return "it is not in a git work tree"
}
