package cli

import (
	"strings"

	"github.com/codexhost/codexhost/model"
)

// doctorProblems is the error `codexhost doctor` exits with when its report is not OK: the
// report is already printed, and the error names the checks that failed and their fixes. A
// report printed for people already holds each hint under its check, so the error then
// points there instead of printing them again (human).
func doctorProblems(rep doctorReport, human bool) error {
	if rep.OK {
		return nil
	}
	var failed, hints []string
	for _, c := range []struct {
		name string
		ok   bool
		err  *model.Error
	}{{"config", rep.Config.OK, rep.Config.Error}, {"codex", rep.Codex.OK, rep.Codex.Error}, {"store", rep.Store.OK, rep.Store.Error}} {
		if c.ok {
			continue
		}
		failed = append(failed, c.name)
		if c.err != nil && c.err.Hint != "" {
			hints = append(hints, c.name+": "+c.err.Hint)
		}
	}
	if len(hints) == 0 || human {
		hints = []string{"see the report above"}
	}
	return model.Errorf(model.CodeFailedPrecondition, strings.Join(hints, "; "), "codexhost doctor found problems: %s", strings.Join(failed, ", "))
}
