package cli

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

var hintedCommand = regexp.MustCompile("`codexhost ([^`]+)`|: codexhost (.+)$")

// hinted is every command a text names, as arguments, its placeholders filled in.
func hinted(text string) [][]string {
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		for _, m := range hintedCommand.FindAllStringSubmatch(line, -1) {
			cmd := m[1] + m[2]
			args := strings.Fields(strings.NewReplacer(" TEXT", " hello").Replace(cmd))
			out = append(out, args)
		}
	}
	return out
}

// runHinted runs what a hint names from the operator's shell (no host parameters, no client
// token): each must work, not stop at RUNTIME_UNREACHABLE.
func runHinted(t *testing.T, where, text string) {
	t.Helper()
	cmds := hinted(text)
	if len(cmds) == 0 {
		t.Fatalf("%s names no command: %q", where, text)
	}
	for _, args := range cmds {
		out, errOut, code := run(t, args...)
		if code != 0 {
			t.Errorf("%s: hinted `codexhost %s` failed (%d): %s%s", where, strings.Join(args, " "), code, out, errOut)
		}
	}
}

// The hints an operator is given name commands that work from the operator's shell: the
// `continue` output's send line (its turn runs to the end although no runtime outlives the
// command), and the hint of a thread that is not found.
func TestHintsGivenToOperatorsWorkFromTheirShell(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	src := stored(t, codexHome, "hello from the source")
	operatorHome(t, bin, codexHome)

	human, errOut, code := run(t, "continue", src)
	if code != 0 {
		t.Fatalf("continue: %d %s", code, errOut)
	}
	var sendLine string
	for _, l := range strings.Split(human, "\n") {
		if strings.HasPrefix(l, "send to it: ") {
			sendLine = l
		}
	}
	runHinted(t, "continue", sendLine)
	sup := hinted(sendLine)[0][2]
	out, errOut, code := run(t, "thread", "read", sup, "--operator")
	var read api.ThreadReadResult
	if code != 0 || json.Unmarshal([]byte(out), &read) != nil || read.Status == "active" {
		t.Fatalf("thread read --operator after the hinted send: %d %s %s", code, out, errOut)
	}

	_, errOut, code = run(t, "lineage", "019a0000-0000-7000-8000-000000000000")
	if code != 1 || errorCode(t, errOut) != model.CodeThreadNotFound {
		t.Fatalf("lineage of a missing thread: %d %s", code, errOut)
	}
	runHinted(t, "THREAD_NOT_FOUND", errOut)
}

// Without --operator the thread commands stay agent-facing: no fallback to the home's client.
func TestThreadCommandsWithoutOperatorStillNeedAConnection(t *testing.T) {
	t.Parallel()
	operatorHome(t, "/nonexistent/codex", t.TempDir())
	_, errOut, code := run(t, "thread", "list", "--all-cwd")
	if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable || !isEnvelope(errOut) {
		t.Fatalf("thread list without a connection: %d %s", code, errOut)
	}
}

// An operator command run with a client token (lineage, continue) passes the runtime's hints
// on as they are: the thread commands they name run with that token, and --operator would
// act as the home's operator instead. The home's own client gets them with --operator.
func TestOperatorCommandHintsFollowTheConnection(t *testing.T) {
	t.Parallel()
	notFound := model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost thread list`", "no thread x")
	for local, want := range map[bool]string{false: "check the id with `codexhost thread list`", true: "check the id with `codexhost thread list --operator`"} {
		s := &operatorSession{local: local}
		var me *model.Error
		if !errors.As(s.hinted(notFound), &me) || me.Hint != want {
			t.Errorf("local %v: hint %q, want %q", local, me.Hint, want)
		}
	}
}
