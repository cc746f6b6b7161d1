package model

import (
	"strings"
	"testing"
)

func TestTaskTitle(t *testing.T) {
	long := strings.Repeat("é", 200)
	for in, want := range map[string]string{
		"fix the bug":                     "fix the bug",
		"\n\n  fix\tthe   bug \nand more": "fix the bug",
		"   \n\t\n":                       "",
		"a\x1b[2Jb":                       "a [2Jb",
		"evil\u202etxt.exe\u2066x":        "evil txt.exe x",
		long:                              strings.Repeat("é", TaskTitleRunes-1) + "…",
	} {
		if got := TaskTitle(in); got != want {
			t.Errorf("TaskTitle(%q) = %q, want %q", in, got, want)
		}
	}
}
