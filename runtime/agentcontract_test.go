package runtime

import (
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// One status vocabulary: a finished native thread reads the same in thread list as in thread
// read — "completed" — whether codexhost started it or another Codex client left it stored,
// though the App Server's catalog rows carry no turn.
func TestNativeListRowsReadTheirLastTurnsOutcome(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, operators: []string{"ops"}})
	c := th.client("ops")
	mine := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "finish", Cwd: t.TempDir()}).Thread.ID
	waitStopped(t, c, mine)
	stored, _ := codexfixture.StoredThread(t, th.codexHome, "", "a stored session")
	list := call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true})
	seen := 0
	for _, info := range list.Threads {
		if info.ID != mine && info.ID != stored {
			continue
		}
		seen++
		read := call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: info.ID})
		if info.RunStatus != model.StatusCompleted || info.RunStatus != read.Status {
			t.Errorf("thread %s: list says %q, read says %q; want both completed", info.ID, info.RunStatus, read.Status)
		}
	}
	if seen != 2 {
		t.Fatalf("listed %d of the two native threads: %+v", seen, list.Threads)
	}
}

// A request id names one delegation: repeated exactly it returns the first child; reused with
// another harness, task or model it is refused, not answered with the first child.
func TestRequestIDReusedWithOtherParametersIsRefused(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"bot"}})
	c := th.client("bot")
	cwd := t.TempDir()
	first := api.DelegateStartParams{Harness: "shell", Task: "the task", RequestID: "r-1", Cwd: cwd}
	a := delegate(t, c, first)
	again := delegate(t, c, first)
	if !again.Existing || again.Thread.ID != a.Thread.ID {
		t.Fatalf("the same request again: %+v, want the first child", again)
	}
	for _, changed := range []api.DelegateStartParams{
		{Harness: "shell", Task: "another task", RequestID: "r-1", Cwd: cwd},
		{Harness: "slow", Task: "the task", RequestID: "r-1", Cwd: cwd},
		{Harness: "shell", Task: "the task", RequestID: "r-1", Cwd: cwd, Model: "other"},
	} {
		me := callErr(t, c, api.MethodDelegateStart, changed, model.CodeInvalidArgument)
		if me.Details["thread"] != a.Thread.ID {
			t.Errorf("refusal %v does not name the first child", me)
		}
	}
}

// A model the harness cannot run is refused before any thread starts: on the native harness,
// a name neither in Codex's catalog nor its configuration; Codex's configured model (the
// fake provider's here, in no catalog) is accepted.
func TestDelegateRefusesAModelTheHarnessDoesNotOffer(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot"}})
	c := th.client("bot")
	cwd := t.TempDir()
	me := callErr(t, c, api.MethodDelegateStart, api.DelegateStartParams{Harness: "codex", Task: "x", Model: "nope", Cwd: cwd}, model.CodeInvalidArgument)
	if me.Details["models"] == nil {
		t.Errorf("the refusal lists no models: %v", me)
	}
	if n := th.threadRecords(); n != 0 {
		t.Fatalf("%d threads after a refused model", n)
	}
	ok := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "y", Model: "mock-model", Cwd: cwd})
	waitStopped(t, c, ok.Thread.ID)
}
