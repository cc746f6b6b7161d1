package fleet_test

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// continue prints the supervised thread's own id: the transcript of that id is the one of
// the native session it drives, the same as the transcript of the session's Codex id, and
// before its first send the error says what to do instead of "no such thread".
func TestTranscriptOfASupervisedThreadIsItsSessions(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	src := hosttest.Stored(t, th.CodexHome, "fix the parser please")
	sid := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}).Thread.ID

	if me := hosttest.CallErr(t, c, api.MethodCatalogTranscript, api.CatalogTranscriptParams{Thread: sid}, model.CodeFailedPrecondition); me.Hint == "" {
		t.Fatalf("transcript of a pending branch: %+v", me)
	}

	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "go on"})
	hosttest.WaitStopped(t, c, sid)
	sup, err := th.Store().Supervision(model.ThreadID(sid))
	if err != nil || sup.Canonical == "" {
		t.Fatalf("binding %+v %v", sup, err)
	}
	tr := hosttest.Call[api.CatalogTranscriptResult](t, c, api.MethodCatalogTranscript, api.CatalogTranscriptParams{Thread: model.ThreadID(sid).Link()})
	if tr.Thread != string(sup.Canonical) || tr.CodexhostThread != sid || len(tr.Turns) != 1 {
		t.Fatalf("transcript of the supervised thread: %+v", tr)
	}
}
