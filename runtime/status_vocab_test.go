package runtime

import (
	"testing"

	"github.com/codexhost/codexhost/internal/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// One status vocabulary: a finished native thread reads the same in thread list as in thread
// read — "completed" — whether codexhost started it or another Codex client left it stored,
// though the App Server's catalog rows carry no turn.
func TestNativeListRowsReadTheirLastTurnsOutcome(t *testing.T) {
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
