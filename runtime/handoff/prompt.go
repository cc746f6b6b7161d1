package handoff

import (
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// Prompt is the runner's first message, generated from the persisted handoff so that the
// client never repeats it. Test commands are information: codexhost runs them after the turn.
func Prompt(h model.Handoff, place Place, sb Sandbox) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Task: %s\n\n", h.Title)
	fmt.Fprintf(&b, "## Objective\n\n%s\n\n", h.Objective)
	fmt.Fprintf(&b, "## Where\n\nWork only inside %s (the approved project root is %s).\n", place.Dir, place.Root)
	switch sb.Mode {
	case SandboxReadOnly:
		b.WriteString("The sandbox is read-only: this task may read and inspect, not change files.\n")
	default:
		b.WriteString("The sandbox lets you write inside that directory only; /tmp and the network are closed unless stated below.\n")
		if sb.Network {
			b.WriteString("Network access was granted by the operator's confirmation of this high-risk task.\n")
		}
	}
	section(&b, "Constraints", h.Constraints)
	section(&b, "Allowed operations", h.AllowedOperations)
	fmt.Fprintf(&b, "\nRisk level: %s\n", h.RiskLevel)
	section(&b, "Acceptance criteria", h.AcceptanceCriteria)
	section(&b, "Expected artifacts (paths relative to the project directory)", h.ExpectedArtifacts)
	if len(h.TestCommands) > 0 {
		section(&b, "Test commands (for information: codexhost runs them itself after your turn)", h.TestCommands)
	}
	if h.Allows(model.OpUseSkillContext) || len(h.SkillContext) > 0 {
		section(&b, "Skill context", h.SkillContext)
	}
	if !h.Notes.IsZero() {
		notes := h.Notes.Items
		if notes == nil {
			notes = []string{h.Notes.Text}
		}
		section(&b, "Notes", notes)
	}
	return b.String()
}

func section(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	for _, it := range items {
		fmt.Fprintf(b, "- %s\n", it)
	}
}
