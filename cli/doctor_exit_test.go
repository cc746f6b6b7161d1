package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// A home whose checks all pass exits 0; one without codex anywhere exits 1, its report still
// on stdout (text or --json), and its fix the one the terminal app shows.
func TestDoctorExitsNonZeroWhenItFindsProblems(t *testing.T) {
	t.Parallel()
	healthy := t.TempDir()
	if err := os.Chmod(healthy, 0o700); err != nil { // a home others can enter is a problem
		t.Fatal(err)
	}
	setenv(t, envHome, healthy)
	codex := filepath.Join(t.TempDir(), "codex")
	if err := os.WriteFile(codex, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	setenv(t, "CODEXHOST_CODEX_BIN", codex)
	out, errOut, code := run(t, "doctor", "--json")
	var rep doctorReport
	if code != 0 || errOut != "" || json.Unmarshal([]byte(out), &rep) != nil || !rep.OK {
		t.Fatalf("healthy home: exit %d, %s %s", code, out, errOut)
	}
	if out, _, code := run(t, "doctor"); code != 0 || !strings.HasSuffix(out, "\nok\n") {
		t.Fatalf("healthy home, text: exit %d\n%s", code, out)
	}

	// No codex: none named, none in the home, none in a checkout's cache, none on PATH.
	sick := t.TempDir()
	setenv(t, envHome, sick)
	setenv(t, "CODEXHOST_CODEX_BIN", "")
	setenv(t, "CODEXHOST_CODEX_CACHE", t.TempDir())
	setenv(t, "PATH", t.TempDir())
	out, errOut, code = run(t, "doctor", "--json")
	rep = doctorReport{}
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.OK || rep.Codex.OK || rep.Codex.Error == nil ||
		rep.Codex.Error.Code != model.CodeAppServerUnavailable || rep.Codex.Error.Hint != appserver.FixHint(sick) {
		t.Fatalf("home without codex: exit %d\n%s\n%s", code, out, errOut)
	}
	if errorCode(t, errOut) != model.CodeFailedPrecondition || !strings.Contains(errOut, "found problems: codex") {
		t.Fatalf("the exit error should name the failed check: %s", errOut)
	}
	if !strings.Contains(errOut, appserver.FixHint(sick)) {
		t.Fatalf("the JSON exit error should carry the fix: %s", errOut)
	}
	out, errOut, code = run(t, "doctor")
	if code != 1 || !strings.Contains(out, "hint: "+appserver.FixHint(sick)) || !strings.Contains(out, appserver.InstallCommand(sick)) ||
		!strings.HasSuffix(out, "problems found\n") {
		t.Fatalf("home without codex, text: exit %d\n%s", code, out)
	}
	// Issue 24 item 6: the hint shows once, under its check, not again in the exit error.
	if n := strings.Count(out+errOut, appserver.InstallCommand(sick)); n != 1 {
		t.Fatalf("the fix shows %d times:\n%s\n%s", n, out, errOut)
	}
}
