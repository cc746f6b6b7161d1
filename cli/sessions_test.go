package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime"
	"github.com/codexhost/codexhost/runtime/api"
)

// operatorHome points the CLI at a fresh codexhost home (short: it holds a Unix socket) and
// the runtime at codexBin and codexHome.
func operatorHome(t *testing.T, codexBin, codexHome string) string {
	t.Helper()
	home, err := os.MkdirTemp("", "chc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	setenv(t, envHome, home)
	setenv(t, envClientToken, "")
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "") // as if run at the keyboard, not in a harness
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	setenv(t, "CODEXHOST_CODEX_BIN", codexBin)
	setenv(t, "CODEX_HOME", codexHome)
	return home
}

// errorCode is the code of the error on stderr, printed as the JSON envelope or as the text
// people get (`error: CODE: message`).
func errorCode(t *testing.T, stderr string) model.Code {
	t.Helper()
	if rest, ok := strings.CutPrefix(stderr, "error: "); ok {
		code, _, _ := strings.Cut(rest, ":")
		return model.Code(code)
	}
	var env struct {
		Error model.Error `json:"error"`
	}
	if err := json.Unmarshal([]byte(stderr), &env); err != nil {
		t.Fatalf("stderr is not an error envelope: %q", stderr)
	}
	return env.Error.Code
}

// Scenario: S003-01 — `sessions` works on a fresh machine: without a token it makes the home's
// local operator client (token file 0600, its hash in config.toml), starts a runtime for the
// one command and lists the default Codex home.
func TestS003_01_SessionsUsesTheLocalOperatorClientAndAnEmbeddedRuntime(t *testing.T) {
	t.Parallel()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	codexHome := codextest.NewHome(t, fake.URL())
	older := stored(t, codexHome, "the older thread")
	id := stored(t, codexHome, "PREVIEW-SECRET hello")
	home := operatorHome(t, bin, codexHome)

	out, errOut, code := run(t, "sessions", "--json")
	if code != 0 {
		t.Fatalf("sessions: %d %s", code, errOut)
	}
	var res api.CatalogSessionsResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("sessions JSON: %v\n%s", err, out)
	}
	if len(res.Hosts) != 1 || res.Hosts[0].Host != "gateway:local" || len(res.Hosts[0].Sessions) != 2 || res.Hosts[0].Sessions[0].ID != id {
		t.Fatalf("sessions %s", out)
	}
	for _, leak := range []string{"PREVIEW-SECRET", codexHome, "rollout"} {
		if strings.Contains(out, leak) {
			t.Fatalf("output holds %q: %s", leak, out)
		}
	}
	// The operator has no token: nothing secret is left in the home.
	if _, err := os.Stat(filepath.Join(home, "operator.token")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an operator token file exists: %v", err)
	}
	// The runtime lived for the command only.
	if _, err := api.Dial(context.Background(), "unix://"+filepath.Join(home, runtime.SocketName), ""); !model.IsCode(err, model.CodeRuntimeUnreachable) {
		t.Fatalf("a runtime still answers: %v", err)
	}

	human, _, code := run(t, "sessions", "--limit", "1")
	if code != 0 || !strings.Contains(human, "gateway:local  1 session") || !strings.Contains(human, id) || !strings.Contains(human, "--cursor cc1.") {
		t.Fatalf("human output (%d):\n%s", code, human)
	}
	// A cursor printed by one command works in the next, which runs another runtime.
	out, _, _ = run(t, "sessions", "--limit", "1", "--json")
	var first api.CatalogSessionsResult
	_ = json.Unmarshal([]byte(out), &first)
	out, errOut, code = run(t, "sessions", "--limit", "1", "--json", "--host", "gateway:local", "--cursor", first.Hosts[0].NextCursor)
	if code != 0 || !strings.Contains(out, older) || strings.Contains(out, `"nextCursor"`) {
		t.Fatalf("second page (%d): %s %s", code, out, errOut)
	}

	tr, errOut, code := run(t, "transcript", id, "--json")
	var page api.CatalogTranscriptResult
	if code != 0 || json.Unmarshal([]byte(tr), &page) != nil || len(page.Turns) != 1 || page.Turns[0].Messages[0].Text != "PREVIEW-SECRET hello" {
		t.Fatalf("transcript (%d): %s %s", code, tr, errOut)
	}
	ar, errOut, code := run(t, "archive", id, "--confirm-no-other-runner", "--json")
	if code != 0 || !strings.Contains(ar, `"archived":true`) {
		t.Fatalf("archive (%d): %s %s", code, ar, errOut)
	}
	out, _, _ = run(t, "sessions", "--json")
	if strings.Contains(out, id) {
		t.Fatalf("an archived session is listed: %s", out)
	}
}

// Scenario: S003-14 — archive without the confirmation flag is refused with INVALID_ARGUMENT
// naming the flag, before anything starts or changes.
func TestS003_14_ArchiveWithoutConfirmationIsRefusedBeforeAnything(t *testing.T) {
	t.Parallel()
	home := operatorHome(t, "/nonexistent/codex", t.TempDir())
	_, errOut, code := run(t, "archive", "01a22b08-0000-7000-8000-000000000001")
	if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument || !strings.Contains(errOut, "--confirm-no-other-runner") {
		t.Fatalf("archive without the flag (%d): %s", code, errOut)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Fatalf("the refused archive touched the home: %v", ents)
	}
}

// Scenario: S003-L — bad limits and a cursor without --host are refused; a host whose App
// Server cannot start reports its code in the output without a path, and a hint to the
// command that shows the cause.
func TestS003_L_SessionsBadInputAndFailedHost(t *testing.T) {
	t.Parallel()
	operatorHome(t, "/nonexistent/secret-bin/codex", t.TempDir())
	for _, args := range [][]string{{"--limit", "0"}, {"--limit", "101"}, {"--cursor", "cc1.x.y"}, {"--host", "gateway:nowhere"}} {
		_, errOut, code := run(t, append([]string{"sessions"}, args...)...)
		if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument {
			t.Fatalf("sessions %v (%d): %s", args, code, errOut)
		}
	}
	out, errOut, code := run(t, "sessions")
	if code != 0 || !strings.Contains(out, "gateway:local  error APP_SERVER_UNAVAILABLE") || strings.Contains(out, "secret-bin") {
		t.Fatalf("failed host (%d):\n%s%s", code, out, errOut)
	}
	// The hint leads to the cause on this machine, with no runtime left running to retry.
	if !strings.Contains(out, "`codexhost codex status` shows why") {
		t.Fatalf("the failed host's hint does not lead to codex status:\n%s", out)
	}
	// The one host asked for failing is the command failing.
	_, errOut, code = run(t, "sessions", "--host", "gateway:local")
	if code != 1 || errorCode(t, errOut) != model.CodeAppServerUnavailable || strings.Contains(errOut, "secret-bin") {
		t.Fatalf("sessions --host of a failed host (%d): %s", code, errOut)
	}
	status, _, _ := run(t, "codex", "status")
	if !strings.Contains(status, "/nonexistent/secret-bin/codex") || !strings.Contains(status, "hint: ") {
		t.Fatalf("codex status does not name the cause and the fix:\n%s", status)
	}
	out, _, code = run(t, "hosts")
	if code != 0 || !strings.Contains(out, "gateway:local (default)") || !strings.Contains(out, "list,transcript,continue,archive") {
		t.Fatalf("hosts (%d):\n%s", code, out)
	}
}

// Inside a harness process an operator command uses the host's parameters only: it never
// falls back to the home's operator client.
func TestOperatorCommandsInsideAHarnessUseOnlyTheHostParameters(t *testing.T) {
	t.Parallel()
	home := operatorHome(t, "/nonexistent/codex", t.TempDir())
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", "unix://"+filepath.Join(home, "nothing.sock"))
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "")
	_, errOut, code := run(t, "sessions")
	if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable {
		t.Fatalf("incomplete parameters (%d): %s", code, errOut)
	}
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", "x")
	_, errOut, code = run(t, "hosts")
	if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable {
		t.Fatalf("dead endpoint (%d): %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "operator.token")); !os.IsNotExist(err) {
		t.Fatalf("the operator token was made inside a harness: %v", err)
	}
}

// stored is a stored Codex thread with one completed turn, loaded by no App Server.
func stored(t *testing.T, codexHome, text string) string {
	t.Helper()
	id, _ := codexfixture.StoredThread(t, codexHome, "", text)
	return id
}

// Operator commands are bounded: --timeout-ms (75 s for sessions, 30 s for continue and
// archive by default) ends the command with a clear error; a bad value is refused. The
// older --timeout still works, hidden from help.
func TestOperatorCommandsTimeOut(t *testing.T) {
	t.Parallel()
	operatorHome(t, "/nonexistent/secret-bin/codex", t.TempDir())
	for _, flag := range []string{"--timeout-ms", "--timeout"} {
		_, errOut, code := run(t, "sessions", flag, "1")
		if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable || !strings.Contains(errOut, "no answer within 1 ms") {
			t.Fatalf("sessions %s 1 (%d): %s", flag, code, errOut)
		}
	}
	for _, args := range [][]string{{"lineage", "019a0000-0000-7000-8000-000000000001"}, {"continue", "019a0000-0000-7000-8000-000000000001"}} {
		_, errOut, code := run(t, append(args, "--timeout-ms", "1")...)
		if code != 1 || errorCode(t, errOut) != model.CodeRuntimeUnreachable {
			t.Fatalf("%s --timeout-ms 1 (%d): %s", args[0], code, errOut)
		}
		help, _, _ := run(t, args[0], "--help")
		if !strings.Contains(help, "--timeout-ms") || strings.Contains(help, "--timeout ") {
			t.Fatalf("%s --help shows the old --timeout or lacks --timeout-ms:\n%s", args[0], help)
		}
	}
	_, errOut, code := run(t, "archive", "019a0000-0000-7000-8000-000000000001", "--confirm-no-other-runner", "--timeout", "-5")
	_, errOut, code = run(t, "archive", "019a0000-0000-7000-8000-000000000001", "--confirm-no-other-runner", "--timeout", "-5")
	if code != 1 || errorCode(t, errOut) != model.CodeInvalidArgument {
		t.Fatalf("archive --timeout -5 (%d): %s", code, errOut)
	}
}
