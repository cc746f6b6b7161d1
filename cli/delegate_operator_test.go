package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The person at the keyboard delegates as the terminal app's `d` does: `delegate start`
// without a connection says to add --operator, and with it the delegation runs on the home's
// own client, in a runtime started for the command, whose child turn runs to its end before
// the command returns (a runtime that ended with the command would interrupt it); the
// commands it prints to run next carry --operator too.
func TestDelegateStartAtTheKeyboardFollowsItsHint(t *testing.T) {
	t.Parallel()
	operatorHomeWithEcho(t, "sleep 0.3; cat")
	args := []string{"delegate", "start", "--harness", "echo", "--task", "from the keyboard"}
	_, errOut, code := run(t, args...)
	if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable || !strings.Contains(errOut, "at the keyboard add --operator") {
		t.Fatalf("delegate start without a connection: %d %s", code, errOut)
	}

	out, errOut, code := run(t, append(args, "--operator")...)
	var started api.DelegateStartResult
	if code != 0 || json.Unmarshal([]byte(out), &started) != nil {
		t.Fatalf("delegate start --operator: %d %s %s", code, out, errOut)
	}
	if started.Status != "completed" {
		t.Fatalf("the child's status when the command returned: %q, want completed", started.Status)
	}
	// What it prints to run next runs from the same shell.
	if started.Next == nil || !strings.HasSuffix(started.Next.Read, " --operator") {
		t.Fatalf("next: %+v, want the operator form", started.Next)
	}
	out, errOut, code = run(t, strings.Fields(started.Next.Read)[1:]...)
	var read api.ThreadReadResult
	if code != 0 || json.Unmarshal([]byte(out), &read) != nil {
		t.Fatalf("%s: %d %s %s", started.Next.Read, code, out, errOut)
	}
	if read.Status != "completed" || read.Result == nil || !strings.Contains(read.Result.Text, "from the keyboard") {
		t.Fatalf("the child after the command: %s", out)
	}
	if o := read.Thread.Origin; o == nil || o.Kind != "client" || o.Client != "local" {
		t.Fatalf("the child's origin: %+v, want the home's own client", o)
	}
}

// The operator commands take --operator too, as a person used to the thread commands adds
// it: they are the operator's already, and an "unknown flag" would only get in the way.
func TestOperatorCommandsTakeOperatorToo(t *testing.T) {
	t.Parallel()
	operatorHome(t, "/nonexistent/codex", t.TempDir())
	for _, args := range [][]string{{"approvals", "--operator"}, {"hosts", "--operator"}, {"usage", "--operator"}} {
		if out, errOut, code := run(t, args...); code != 0 {
			t.Errorf("%v: %d %s %s", args, code, out, errOut)
		}
	}
}

// operatorHomeWithEcho is operatorHome with one external harness, echo, running script.
func operatorHomeWithEcho(t *testing.T, script string) string {
	t.Helper()
	home := operatorHome(t, "/nonexistent/codex", t.TempDir())
	config := "[harnesses.echo]\ncommand = [\"sh\", \"-c\", " + strconv.Quote(script) + "]\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}
