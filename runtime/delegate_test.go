package runtime

import (
	"context"
	"fmt"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// This test stays beside the Host: it compares the turn's token with the one the Host's
// agent registry (Host.agents) mints for the thread, which no exported method gives. The
// other delegation tests live in runtime/threads.

// An external harness turn sees the three connection parameters and its own thread id
// (what S000-05's caller resolution relies on), and no other CODEXHOST_* variable of the
// runtime's environment.
// Scenario: S000-09
func TestS000_09_ExternalTurnEnvironmentHasOnlyConnectionParameters(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}, environ: []string{"CODEXHOST_SECRET=x", "CODEXHOST_THREAD_ID=y", "CODEXHOST_CLIENT_TOKEN=leak"}})
	c := th.client("bot")
	res := delegate(t, c, api.DelegateStartParams{Harness: "env", Task: "print the environment", Cwd: t.TempDir()})
	r := waitStopped(t, c, res.Thread.ID)
	if r.Result == nil || r.Result.Status != model.TurnCompleted {
		t.Fatalf("env turn: %+v", r.Result)
	}
	got := codexhostVars(r.Result.Text)
	want := map[string]string{
		"CODEXHOST_CLI_PATH":         th.opts.CLIPath,
		"CODEXHOST_RUNTIME_ENDPOINT": th.Endpoints()[0],
		"CODEXHOST_RUNTIME_TOKEN":    th.agents.ForThread(model.ThreadID(res.Thread.ID)),
		"CODEXHOST_THREAD_ID":        res.Thread.ID,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("CODEXHOST_* of the turn:\n%v\nwant\n%v", got, want)
	}
	// The endpoint and token it was given really reach this runtime as a runtime caller.
	cl, err := api.Dial(context.Background(), got["CODEXHOST_RUNTIME_ENDPOINT"], got["CODEXHOST_RUNTIME_TOKEN"])
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if cl.Caller().Kind != api.CallerRuntime || cl.Caller().Thread != res.Thread.ID {
		t.Fatalf("connected as %+v, want the agent of %s", cl.Caller(), res.Thread.ID)
	}
}
