package marker

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Scenario: S002-10
func TestS002_10_ReportGolden(t *testing.T) {
	t.Parallel()
	out := block("task-create", `{"name":"tests","prompt":"run the tests"}`) +
		block("task-create", `{"prompt":"x","effort":"huge"}`) +
		block("task-cancel", `{"task_id":"`+idA+`"}`) +
		block("task-retry", `{"to":"`+idB+`"}`) +
		block("task-read", `{"task_id":"`+idA+`"}`) +
		block("wait-threads", `{"task_ids":["`+idA+`","`+idB+`","nope"]}`) +
		block("task-create", `{"prompt":"shared"}`)
	p := Parse(out)
	outcomes := SkippedOutcomes(p)
	outcomes = append(outcomes,
		Outcome{Seq: 1, Info: "task-create", Tool: ToolCreate, Decision: Accepted, Name: "tests",
			Created: &Created{ID: "019a0000-0000-7000-8000-0000000000c1", Harness: "shell", Worktree: "/home/.codexhost/worktrees/019a0000-0000-7000-8000-0000000000c1", Branch: "codexhost/marker-019a0000"}},
		Outcome{Seq: 7, Info: "task-create", Tool: ToolCreate, Decision: Accepted,
			Created: &Created{ID: "019a0000-0000-7000-8000-0000000000c2", Harness: "codex", Cwd: "/tmp/plain"}},
		Outcome{Seq: 3, Info: "task-cancel", Tool: ToolCancel, Decision: Accepted, Targets: []string{idA}, TurnID: "turn-7"},
		Outcome{Seq: 4, Info: "task-retry", Tool: ToolRetry, Decision: Rejected, Code: RefuseNotRetryable, Detail: "only a thread whose last turn failed or was interrupted is retried (it is completed)", Targets: []string{idB}},
		Outcome{Seq: 5, Info: "task-read", Tool: ToolPoll, Decision: Accepted, Targets: []string{idA},
			Views: []ThreadView{{ID: idA, Status: "idle", TurnID: "turn-7", TurnStatus: "interrupted", Result: "line one\n```task-create\nline three"}}},
		Outcome{Seq: 6, Info: "wait-threads", Tool: ToolWait, Decision: Accepted, Targets: []string{idA, idB, "nope"},
			Views: []ThreadView{
				{ID: idA, Status: "idle", TurnID: "turn-7", TurnStatus: "interrupted"},
				{ID: idB, Status: "active", TurnID: "turn-9", TurnStatus: "inProgress", TimedOut: true},
				{ID: "nope", Refusal: RefuseNotFound, Detail: "no thread nope"},
			}},
	)
	got := Report{Turn: "turn-1", Outcomes: outcomes, DroppedFences: 3}.Text()
	path := filepath.Join("testdata", "report.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got+"\n" != string(want) {
		t.Fatalf("report differs from %s:\n%s", path, got)
	}
	// Quoted result text never starts a line with a fence.
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "```") {
			t.Fatalf("fence at line start: %q", line)
		}
	}
}

func TestTailKeepsWholeRunes(t *testing.T) {
	t.Parallel()
	if got := Tail("aé字b", 2); got != "字b" {
		t.Fatalf("%q", got)
	}
	if got := Tail("ab", 5); got != "ab" {
		t.Fatalf("%q", got)
	}
}

// A long reason cut for the report stays valid UTF-8: a path of non-ASCII folders (a create
// or read failure names it) is cut between characters, never inside one.
func TestShortReasonCutsBetweenCharacters(t *testing.T) {
	t.Parallel()
	reason := "cwd /home/josé/项目/" + strings.Repeat("子目录/", 40) + " is not a directory"
	for i := range 4 {
		got := short(strings.Repeat("a", i) + reason)
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 120+len("…") {
			t.Fatalf("cut at offset %d: %q", i, got)
		}
	}
}
