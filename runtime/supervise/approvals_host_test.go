package supervise_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A session continued from the fleet runs under the approval policy of the user's Codex
// config; what its canonical thread asks is answered like any approval and reads with the
// thread the person continued (the id the fleet and the transcript show), as for any thread.
func TestContinuedSessionApprovalReadsWithTheSupervisedThread(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	src, _ := codexfixture.StoredThread(t, th.CodexHome, "", "hello")
	askOnRequest(t, th.CodexHome)
	th.Restart() // the App Server reads the policy when it starts
	c := th.Client("ops")

	sid := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}).Thread.ID
	asked := declineAnEscalation(t, th, c, sid)

	rd := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: sid, View: model.ViewMessages})
	if len(rd.Approvals) != 1 || rd.Approvals[0].ID != asked.ID || rd.Approvals[0].Decision != model.DecisionDecline {
		t.Fatalf("read of the continued thread %s: approvals %+v, want %s", sid, rd.Approvals, asked.ID)
	}
}

// A branch of an extra Codex home asks its approvals as a branch of the default home does:
// its App Server is started with the runtime's approval handler, so the request waits for an
// answer instead of going unanswered.
func TestAnExtraHomesBranchAsksItsApprovals(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	extra := codextest.NewHome(t, th.Fake.URL())
	src, _ := codexfixture.StoredThread(t, extra, "", "extra question")
	askOnRequest(t, extra)
	cfg, err := config.Load(th.Home)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Catalog.CodexHomes = []string{extra}
	if err := config.Save(th.Home, cfg); err != nil {
		t.Fatal(err)
	}
	th.Restart()
	c := th.Client("ops")

	sid := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src, Host: catalog.ExtraHostID(extra)}).Thread.ID
	declineAnEscalation(t, th, c, sid)
}

// askOnRequest sets the Codex home's approval policy to on-request: the App Server reads it
// when it starts.
func askOnRequest(t *testing.T, codexHome string) {
	t.Helper()
	cfgPath := filepath.Join(codexHome, "config.toml")
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(b), `approval_policy = "never"`, `approval_policy = "on-request"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

// declineAnEscalation sends thread a turn whose command asks to run outside the sandbox,
// waits for that approval to be pending, declines it and waits for the turn to end.
func declineAnEscalation(t *testing.T, th *hosttest.Host, c *api.Client, thread string) model.Approval {
	t.Helper()
	th.Fake.Enqueue(fakemodel.FunctionCall("exec_command",
		`{"cmd":"touch escalated-marker","sandbox_permissions":"require_escalated","justification":"writes a file"}`), fakemodel.Reply("done"))
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: thread, Message: "write it"})
	var asked model.Approval
	hosttest.Eventually(t, "the approval asked", func() bool {
		list := hosttest.Call[api.ApprovalListResult](t, c, api.MethodApprovalList, api.ApprovalListParams{Pending: true})
		if len(list.Approvals) == 1 {
			asked = list.Approvals[0]
		}
		return asked.ID != ""
	})
	hosttest.Call[api.ApprovalResult](t, c, api.MethodApprovalAnswer, api.ApprovalAnswerParams{ID: asked.ID, Decision: model.DecisionDecline})
	hosttest.WaitStopped(t, c, thread)
	return asked
}
