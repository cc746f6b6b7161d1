package mcp

import (
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/runtime/api"
)

// maxRenderBytes bounds the text rendering; the structured content has everything.
const maxRenderBytes = 4000

// render is the text rendering of a result: a few lines a person or a model can act on.
// Results without a rendering of their own are shown as their compact JSON.
func render(tool string, res any, compactJSON []byte) string {
	var b strings.Builder
	switch r := res.(type) {
	case api.HandoffCreateResult:
		fmt.Fprintf(&b, "handoff %s created: %q, risk %s, in %s\nfile: %s\nnext: codex.task_start with handoffId %s",
			r.HandoffID, r.Handoff.Title, r.Handoff.RiskLevel, r.Handoff.Dir, r.HandoffFile, r.HandoffID)
		for _, a := range r.Handoff.SkillActivations {
			state := "not read yet (skill.read it)"
			if a.Activated {
				state = "read"
			}
			fmt.Fprintf(&b, "\nskill %s: %s", a.Skill, state)
		}
	case startedAnswer:
		t := r.Task
		fmt.Fprintf(&b, "task %s %s (handoff %s, risk %s, sandbox %s)\nnext: %s", t.TaskID, t.Status, t.HandoffID, t.RiskLevel, t.Sandbox, t.Next)
	case api.TaskStartResult:
		writeTask(&b, r.Task)
	case api.TaskStatusResult:
		if len(r.Tasks) == 0 {
			b.WriteString("no tasks")
		}
		for i, t := range r.Tasks {
			if i > 0 {
				b.WriteByte('\n')
			}
			writeTask(&b, t)
		}
	case api.TaskInfo:
		writeTask(&b, r)
	case resultsOf:
		writeResults(&b, r)
	case api.SkillRouteResult:
		fmt.Fprintf(&b, "%d skills recommended from %s", len(r.Recommendations), r.SkillRoot)
		for _, rec := range r.Recommendations {
			fmt.Fprintf(&b, "\n%s (score %d): %s", rec.Name, rec.Score, rec.Reason)
		}
	case api.SkillReadResult:
		fmt.Fprintf(&b, "skill %s activated: activationId %s (truncated: %v)\n\n%s", r.Skill, r.ActivationID, r.Truncated, r.Content)
	case api.SkillBundleResult:
		fmt.Fprintf(&b, "skill %s: %d files (activated: %v)", r.Skill, len(r.Files), r.Activated)
		for _, f := range r.Files {
			fmt.Fprintf(&b, "\n%s %d bytes sha256 %s", f.Path, f.Size, f.SHA256)
		}
		for _, f := range r.Refused {
			fmt.Fprintf(&b, "\nrefused %s: %s", f.Reference, f.Reason)
		}
		for _, n := range r.Notes {
			b.WriteString("\nnote: " + n)
		}
	}
	if b.Len() == 0 {
		b.Write(compactJSON)
	}
	return clipText(b.String(), maxRenderBytes)
}

func writeTask(b *strings.Builder, t api.TaskInfo) {
	fmt.Fprintf(b, "task %s %s (handoff %s, risk %s, sandbox %s", t.TaskID, t.Status, t.HandoffID, t.RiskLevel, t.Sandbox)
	if t.Handoff != nil {
		fmt.Fprintf(b, ", %q", t.Handoff.Title)
	}
	b.WriteString(")")
	if t.Reason != "" {
		b.WriteString(": " + t.Reason)
	}
}

func writeResults(b *strings.Builder, r resultsOf) {
	if len(r.Results) == 0 {
		b.WriteString("no tasks")
	}
	for i, res := range r.Results {
		if i > 0 {
			b.WriteString("\n\n")
		}
		writeTask(b, res.Task)
		for _, f := range res.ChangedFiles {
			fmt.Fprintf(b, "\n%s %s", f.Change, f.Path)
		}
		for _, t := range res.Tests {
			fmt.Fprintf(b, "\ntest %q exit %d", t.Command, t.ExitCode)
		}
		for _, a := range res.Artifacts {
			fmt.Fprintf(b, "\nartifact %s exists: %v", a.Path, a.Exists)
		}
		for _, v := range res.Violations {
			b.WriteString("\nviolation: " + v)
		}
		if res.Log != "" {
			b.WriteString("\nlog:\n" + res.Log)
		}
		if res.Diff != "" {
			b.WriteString("\ndiff:\n" + res.Diff)
		}
	}
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "\n… (cut; the structured content has everything)"
}
