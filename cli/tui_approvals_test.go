package cli

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// approvalApp is the terminal app at 80×24 on a real runtime whose native threads run on the
// real App Server with the fake model.
type approvalApp struct {
	ctx  context.Context
	d    *appDriver
	s    *operatorSession
	km   keymap.KeyMap
	fake *fakemodel.Server
}

func newApprovalApp(tb testing.TB) *approvalApp {
	tb.Helper()
	bin := codextest.CodexBin(tb)
	fake := fakemodel.Start(tb)
	codexHome := codextest.NewHome(tb, fake.URL())
	home, _ := appHomeWith(tb, append(codextest.Env(codexHome), "CODEXHOST_CODEX_BIN="+bin))
	ctx, cancel := context.WithCancel(testCtx(tb))
	tb.Cleanup(cancel)
	d, s, km := appOn(tb, ctx, home, 80, 24, 300*time.Millisecond)
	return &approvalApp{ctx: ctx, d: d, s: s, km: km, fake: fake}
}

// acceptInApp starts a native thread under untrusted whose model runs `echo word`, waits for
// the status bar to count its request, opens it with the approvals key and accepts it with
// y. It returns the thread and the time from the key press to the model's follow-up request,
// which Codex sends once it got the decision and ran the command, with the command's output.
func (a *approvalApp) acceptInApp(tb testing.TB, word string) (string, time.Duration) {
	tb.Helper()
	before := len(a.fake.Requests())
	id := delegate(tb, a.s, api.DelegateStartParams{Harness: "codex", Approval: model.ApprovalUntrusted, Cwd: tb.TempDir(),
		Task: "[[mode:shell]] [[cmd:echo " + word + "]]"})
	a.d.waitForScreen("⚑1 approve (!)")
	if n := len(a.fake.Requests()) - before; n != 1 {
		tb.Fatalf("the model got %d requests before the decision", n)
	}
	a.d.press(a.km.Global.Approvals)
	a.d.waitFor("Approve? (1 of 1)", "echo "+word, "y accept")
	pressed := time.Now()
	a.d.press(a.km.Approval.Accept)
	ctx, cancel := context.WithTimeout(a.ctx, 30*time.Second)
	defer cancel()
	reqs, err := a.fake.WaitRequests(ctx, before+2)
	if err != nil {
		tb.Fatal(err)
	}
	if out, ok := reqs[before+1].ToolOutput(); !ok || !strings.Contains(out, word) {
		tb.Fatalf("the command's output did not reach the model: %q", out)
	}
	return id, reqs[before+1].At.Sub(pressed)
}

// The app's approval face against a real runtime and the real App Server, at 80×24: a
// native thread under untrusted asks before its command runs, the status bar counts the
// request, ! opens it in full, y accepts, and Codex gets the decision: the command runs, its
// output goes back to the model, the turn completes, and the request reads answered by the
// operator, whose client the app is.
func TestTerminalAppAnswersARealApproval(t *testing.T) {
	t.Parallel()
	a := newApprovalApp(t)
	id, took := a.acceptInApp(t, "accepted-in-the-app")
	t.Logf("key press to Codex's follow-up request: %v", took.Round(time.Millisecond))
	waitThread(t, a.s, id)
	var res api.ThreadReadResult
	if err := a.s.Call(a.ctx, api.MethodThreadRead, api.ThreadReadParams{Thread: id}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Result == nil || res.Result.Status != "completed" {
		t.Fatalf("the turn after the decision: %+v", res.Result)
	}
	var list api.ApprovalListResult
	if err := a.s.Call(a.ctx, api.MethodApprovalList, api.ApprovalListParams{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Approvals) != 1 || list.Approvals[0].Decision != model.DecisionAccept || list.Approvals[0].State != model.ApprovalAnswered ||
		list.Approvals[0].DecidedBy != "operator" {
		t.Fatalf("approvals %+v", list.Approvals)
	}
	a.d.waitForScreen("approval " + list.Approvals[0].ID + ": accept")
	a.d.press(a.km.Global.Quit)
	a.d.tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// BenchmarkAppApprovalKeyToCodex times, beside e2e's BenchmarkApprovalLatency, the way from
// the app's y on an open request to Codex's follow-up request to the model (the decision
// reached Codex, the command ran sandboxed, its output went back), against the real App
// Server.
func BenchmarkAppApprovalKeyToCodex(b *testing.B) {
	a := newApprovalApp(b)
	var total time.Duration
	n := 0
	for b.Loop() {
		n++
		id, took := a.acceptInApp(b, "bench-"+strconv.Itoa(n))
		total += took
		waitThread(b, a.s, id)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(n), "ms-key-to-codex")
}
