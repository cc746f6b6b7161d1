package marker

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// markerManual is the MARKER BLOCKS section of the embedded manual.
func markerManual(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../cli/manual/delegate.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	start, end := strings.Index(s, "MARKER BLOCKS\n"), strings.Index(s, "HARNESSES\n")
	if start < 0 || end < start {
		t.Fatal("no MARKER BLOCKS section")
	}
	return s[start:end]
}

// Scenario: S002-03 (S002-04) — the manual's examples are what the parser accepts: each
// indented example, written at the line's start, is one valid block; written as shown
// (indented 4 spaces) each is a near miss the report names; the effort and executor values
// the manual lists are the parser's, and no executor form the parser refuses is offered.
func TestManualMarkerExamplesAreWhatRuns(t *testing.T) {
	t.Parallel()
	sec := markerManual(t)
	var examples []string
	lines := strings.Split(sec, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "    ```") && len(lines[i]) > 7 {
			examples = append(examples, strings.Join([]string{lines[i][4:], lines[i+1][4:], lines[i+2][4:]}, "\n")+"\n")
			i += 2
		}
	}
	if len(examples) < 7 {
		t.Fatalf("%d examples found", len(examples))
	}
	for _, ex := range examples {
		p := Parse(ex)
		if len(p.Blocks) != 1 || !p.Blocks[0].Valid() {
			t.Fatalf("the manual's example is not a valid block:\n%s%+v", ex, p.Blocks)
		}
		indented := Parse("    " + strings.ReplaceAll(strings.TrimSuffix(ex, "\n"), "\n", "\n    ") + "\n")
		if len(indented.Blocks) != 1 || indented.Blocks[0].Skip != SkipIndented {
			t.Fatalf("the example as shown is not reported as indented: %+v", indented.Blocks)
		}
	}
	for _, want := range []string{"effort " + strings.Join(Efforts, "|") + ", nothing else", "executor\n  " + strings.Join(Executors, "|") + ", nothing else"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the manual does not list %q", want)
		}
	}
	// The old text offered `executor ... or harness NAME`, which the parser refuses.
	if regexp.MustCompile(`executor [a-z|]+ \([^)]*\) or harness`).MatchString(sec) {
		t.Error("the manual offers harness NAME as an executor value")
	}
	for _, code := range []string{SkipInfoCase, SkipInfoWords, SkipIndented, SkipDuplicate, SkipEffortInvalid} {
		if !strings.Contains(sec, code) {
			t.Errorf("the manual does not name the skip reason %s", code)
		}
	}
	// The relation of a created thread to its author, stated exactly.
	for _, want := range []string{"not a Codex sub-agent or fork", "its delegation parent is you", "thread list --parent <you>", "codexhost lineage"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the manual does not say %q", want)
		}
	}
}
