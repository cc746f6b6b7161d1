package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// compatAgent runs a runtime whose [supervision] table is sup and points the CLI at it the way
// a harness process is: with the host's connection parameters and the runtime token. Codex is
// not installed for it, so every endpoint fails to start.
func compatAgent(t *testing.T, sup config.CompatTools) {
	t.Helper()
	home, err := os.MkdirTemp("", "chk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	if err := config.Save(home, &config.Config{CompatTools: sup}); err != nil {
		t.Fatal(err)
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}
	host := serveRuntime(t, home, environ)
	setenv(t, envHome, home)
	setenv(t, envClientToken, "")
	setenv(t, "CODEXHOST_RUNTIME_ENDPOINT", host.Endpoints()[0])
	setenv(t, "CODEXHOST_RUNTIME_TOKEN", host.RuntimeToken())
}

// Scenario: S003-23 — the compat subcommands are agent-facing: JSON on stdout by default,
// refusals as error envelopes. Without [supervision] enabled every tool is refused.
func TestS003_23_CompatCommandsFollowTheSupervisionTable(t *testing.T) {
	t.Parallel()
	compatAgent(t, config.CompatTools{})
	thread := "019a0000-0000-7000-8000-000000000001"
	for _, args := range [][]string{
		{"compat", "endpoint-probe"},
		{"compat", "sessions-list"},
		{"compat", "session-read", thread},
		{"compat", "session-send", thread, "--message", "hi"},
		{"compat", "session-interrupt", thread},
	} {
		out, errOut, code := run(t, args...)
		if code != 1 || out != "" || errorCode(t, errOut) != model.CodePermissionDenied || !strings.Contains(errOut, "[supervision]") {
			t.Fatalf("%v (%d): %s %s", args, code, out, errOut)
		}
	}
}

// Scenario: S003-23 — with supervision enabled the list prints one JSON document per call
// (here the endpoint's failure, Codex being absent), mode start is refused before any
// endpoint is reached, and transcripts stay refused without allowRawTranscripts.
func TestS003_23_CompatCommandsPrintJSONAndRefuseModeStart(t *testing.T) {
	t.Parallel()
	compatAgent(t, config.CompatTools{Enabled: true, AllowWriteControls: true})
	out, errOut, code := run(t, "compat", "sessions-list", "--include-stored", "--max-stored-sessions", "5")
	if code != 0 {
		t.Fatalf("sessions-list (%d): %s", code, errOut)
	}
	var res api.CompatSessionsListResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("sessions-list JSON: %v\n%s", err, out)
	}
	if len(res.Endpoints) != 1 || res.Endpoints[0].Endpoint != "gateway:local" || res.Endpoints[0].Error == nil || res.Endpoints[0].Error.Code != model.CodeAppServerUnavailable {
		t.Fatalf("sessions-list %s", out)
	}
	thread := "019a0000-0000-7000-8000-000000000001"
	for _, tc := range []struct {
		args []string
		code model.Code
		want string
	}{
		{[]string{"compat", "session-send", thread, "--message", "hi", "--mode", "start"}, model.CodeInvalidArgument, "mode start"},
		{[]string{"compat", "sessions-list", "--include-stored", "--max-stored-sessions", "1001"}, model.CodeInvalidArgument, "1 to 1000"},
		{[]string{"compat", "sessions-list", "--max-stored-sessions", "5"}, model.CodeInvalidArgument, "include_stored"},
		{[]string{"compat", "session-read", thread}, model.CodePermissionDenied, "allowRawTranscripts"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code != 1 || errorCode(t, errOut) != tc.code || !strings.Contains(errOut, tc.want) {
			t.Fatalf("%v (%d): %s", tc.args, code, errOut)
		}
	}
}
