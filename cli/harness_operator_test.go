package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A delegation's HARNESS_NOT_FOUND and DELEGATION_FAILED point to `harness list`, and
// `delegate start --help` to `harness inspect H`: at the keyboard they take --operator like
// the delegation itself, and the RUNTIME_UNREACHABLE hint names --operator only on commands
// that take it (`client events` has no operator form).
func TestHarnessCommandsAtTheKeyboard(t *testing.T) {
	t.Parallel()
	operatorHomeWithEcho(t, "cat")
	_, errOut, code := run(t, "harness", "list")
	if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable || !strings.Contains(errOut, "at the keyboard add --operator") {
		t.Fatalf("harness list without a connection: %d %s", code, errOut)
	}
	out, errOut, code := run(t, "harness", "list", "--operator")
	var list api.HarnessListResult
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || !strings.Contains(out, `"echo"`) {
		t.Fatalf("harness list --operator: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := run(t, "harness", "inspect", "echo", "--operator"); code != 0 {
		t.Fatalf("harness inspect --operator: %d %s", code, errOut)
	}

	_, errOut, code = run(t, "delegate", "start", "--harness", "nope", "--task", "x", "--operator")
	if code != 1 || errorCode(t, errOut) != model.CodeHarnessNotFound {
		t.Fatalf("delegate start on a missing harness: %d %s", code, errOut)
	}

	_, errOut, code = run(t, "client", "events")
	if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable || strings.Contains(errOut, "--operator") {
		t.Fatalf("client events without a connection names a flag it lacks: %d %s", code, errOut)
	}
}
