package opview

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func TestOperatorHintAddsTheOperatorFlagToThreadCommands(t *testing.T) {
	for in, want := range map[string]string{
		"check the id with `codexhost thread list`":                       "check the id with `codexhost thread list --operator`",
		"wait (`codexhost thread wait T`) or (`codexhost thread cancel`)": "wait (`codexhost thread wait T --operator`) or (`codexhost thread cancel --operator`)",
		"`codexhost thread read T --operator`":                            "`codexhost thread read T --operator`",
		"run `codexhost sessions`":                                        "run `codexhost sessions`",
		"check the harness with `codexhost harness list`":                 "check the harness with `codexhost harness list --operator`",
	} {
		if got := OperatorHint(in); got != want {
			t.Errorf("OperatorHint(%q) = %q, want %q", in, got, want)
		}
	}
	e := model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost thread list`", "no thread x")
	got := ForOperator(e).(*model.Error)
	if got.Hint != "check the id with `codexhost thread list --operator`" || e.Hint != "check the id with `codexhost thread list`" {
		t.Fatalf("ForOperator: %q (original %q)", got.Hint, e.Hint)
	}
	plain := errors.New("x")
	if ForOperator(plain) != plain {
		t.Fatal("a plain error changed")
	}
}

// Scenario: issue 24 item 6. `COLUMNS=80 codexhost task status` fits 80 columns: with the
// droppable columns gone, the status word gives way (it was 86 wide with an awaiting task).
func TestTaskTableFitsEightyColumns(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	yes := true
	tb := Tasks([]api.TaskInfo{{TaskID: "019a3000-0000-7000-8000-0000000000f1", Status: "awaitingConfirmation", RiskLevel: "medium",
		Operations: []string{"read", "write", "run_tests"}, TestsPassed: &yes, ChangedFiles: 12, CreatedAt: now.Add(-50 * time.Minute),
		HandoffID: "019a3000-0000-7000-8000-0000000000f9"}})
	var b strings.Builder
	if err := tb.Render(&b, table.Options{Width: 80, Now: now}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Fatalf("line %d wide:\n%s", w, b.String())
		}
	}
	if !strings.Contains(b.String(), "019a3000-0000-7000-8000-0000000000f1") {
		t.Fatalf("the task id was cut:\n%s", b.String())
	}
}
