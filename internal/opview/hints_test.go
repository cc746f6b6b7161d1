package opview

import (
	"errors"
	"testing"

	"github.com/codexhost/codexhost/model"
)

func TestOperatorHintAddsTheOperatorFlagToThreadCommands(t *testing.T) {
	for in, want := range map[string]string{
		"check the id with `codexhost thread list`":                       "check the id with `codexhost thread list --operator`",
		"wait (`codexhost thread wait T`) or (`codexhost thread cancel`)": "wait (`codexhost thread wait T --operator`) or (`codexhost thread cancel --operator`)",
		"`codexhost thread read T --operator`":                            "`codexhost thread read T --operator`",
		"run `codexhost sessions`":                                        "run `codexhost sessions`",
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
