package cli

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// An operator command gives up after its --timeout-ms, "at most a day": a bound of 0 given
// on the command line is refused as the hint for a negative one says ("more than 0"), rather
// than taken as no bound at all.
func TestOperatorTimeoutOfZeroIsRefused(t *testing.T) {
	t.Parallel()
	operatorHome(t, "/nonexistent/codex", t.TempDir())
	for _, args := range [][]string{
		{"hosts", "--timeout-ms", "0"},
		{"sessions", "--timeout", "0"}, // the older name of the same bound
		{"lineage", "01a23330-854a-7562-acc2-04f5e001f216", "--timeout-ms", "0"},
		{"task", "start", "--task", "x", "--project-path", "/tmp", "--timeout", "0"},
	} {
		_, errOut, code := run(t, args...)
		if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument || !strings.Contains(errOut, "more than 0") {
			t.Errorf("%v: %d %s", args, code, errOut)
		}
	}
}
