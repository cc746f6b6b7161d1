package supervise_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// lastRequest is the newest model request: its model and the texts of its input messages.
func lastRequest(t *testing.T, fake *fakemodel.Server, n int) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hosttest.Wait)
	defer cancel()
	reqs, err := fake.WaitRequests(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	r := reqs[len(reqs)-1]
	var body struct {
		Model string `json:"model"`
		Input []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, in := range body.Input {
		for _, c := range in.Content {
			if in.Role == "user" || in.Role == "assistant" {
				texts = append(texts, in.Role+":"+c.Text)
			}
		}
	}
	return body.Model, texts
}

// inOrder reports whether want appears in got in that order (other entries may sit between).
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func loadedHere(t *testing.T, th *hosttest.Host) []string {
	t.Helper()
	c, err := th.Native().Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.ThreadLoadedList(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res.Data
}

// Scenario: S003-04, S003-05, S003-06, S003-11, S003-12, S003-14, S003-15 — continue of a
// stored source (activity unknown, no confirmation asked) makes a pending supervised thread
// (the same one on a repeat call) that carries the source's visible history. Its first send
// pins the source with an ephemeral fork, starts the canonical thread with the model pair
// Codex returned (not the source's older model), injects the history and runs the turn: the
// model sees the earlier messages and the new prompt. A failed pin leaves it pending and
// starts no turn. Later sends go to the same canonical thread. The source is never loaded or
// changed and stays listed.
func TestS003_04_ContinueBranchesAndTheFirstSendPinsStartsAndInjects(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	// The source last ran on another model than the one Codex is configured with now.
	src, rollout := codexfixture.StoredThread(t, th.CodexHome, "gpt-5.5", "earlier question one", "earlier question two")
	before, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	requests := len(th.Fake.Requests())

	res := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: model.ThreadID(src).Link()})
	sid := res.Thread.ID
	if res.State != model.SupervisionPending || res.Existing || res.Source != src || res.Host != catalog.LocalHostID || sid == src ||
		res.Thread.Status != model.ThreadIdle || res.Thread.Harness != model.NativeHarness || res.CanonicalThread != "" {
		t.Fatalf("continue: %+v", res)
	}
	if id, err := model.ParseThreadID(sid); err != nil || strings.Split(string(id), "-")[2][0] != '7' {
		t.Fatalf("supervised id %q is not a UUIDv7", sid)
	}
	if res.History == nil || res.History.Messages != 4 || res.History.OlderOmitted {
		t.Fatalf("history summary %+v", res.History)
	}
	again := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src, Host: catalog.LocalHostID})
	if again.Thread.ID != sid || !again.Existing || again.State != model.SupervisionPending {
		t.Fatalf("second continue: %+v", again)
	}
	// Agents get no write controls.
	hosttest.CallErr(t, th.RuntimeClient(), api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}, model.CodePermissionDenied)

	// The pending thread reads like any thread, with the history as its messages.
	rd := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: sid, View: model.ViewMessages})
	if rd.Thread.ID != sid || rd.Thread.Status != model.ThreadIdle || len(rd.Messages) != 4 || rd.Messages[0].Text != "earlier question one" || rd.Messages[1].Role != model.RoleAssistant {
		t.Fatalf("read pending: %+v", rd)
	}
	// Nothing runs yet: a wait returns at once and there is nothing to cancel.
	if w := hosttest.WaitStopped(t, c, sid); w.Thread.LastTurn != nil || w.Result != nil {
		t.Fatalf("wait on the pending thread: %+v", w)
	}
	hosttest.CallErr(t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: sid}, model.CodeFailedPrecondition)
	// While pending the source is not archived (S003-15).
	hosttest.CallErr(t, c, api.MethodCatalogArchive, api.CatalogArchiveParams{Thread: src, ConfirmNoOtherRunner: true}, model.CodeFailedPrecondition)

	// A pin that fails (the source's rollout is gone) starts no turn and keeps it pending.
	if err := os.Rename(rollout, rollout+".away"); err != nil {
		t.Fatal(err)
	}
	hosttest.CallErr(t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "lost prompt"}, model.CodeFailedPrecondition)
	if err := os.Rename(rollout+".away", rollout); err != nil {
		t.Fatal(err)
	}
	if got := len(th.Fake.Requests()); got != requests {
		t.Fatalf("a failed pin reached the model: %d requests, want %d", got, requests)
	}
	if sup, _ := th.Store().Supervision(model.ThreadID(sid)); sup.State != model.SupervisionPending {
		t.Fatalf("after a failed pin: %+v", sup)
	}

	sent := hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "new prompt here"})
	if sent.Thread.ID != sid || sent.TurnID == "" {
		t.Fatalf("first send: %+v", sent)
	}
	done := hosttest.WaitStopped(t, c, sid)
	if done.Result == nil || done.Result.Status != model.TurnCompleted || !strings.Contains(done.Result.Text, "new prompt here") {
		t.Fatalf("first turn: %+v", done.Result)
	}
	sup, err := th.Store().Supervision(model.ThreadID(sid))
	if err != nil || sup.State != model.SupervisionBound || sup.Canonical == "" || sup.Canonical == model.ThreadID(src) {
		t.Fatalf("binding: %+v %v", sup, err)
	}
	// The fork chose the configured model, not the source's last one, and the canonical
	// thread ran with exactly that pair.
	if sup.Model != "mock-model" || sup.ModelProvider != "fake" {
		t.Fatalf("model pair %s/%s", sup.ModelProvider, sup.Model)
	}
	gotModel, texts := lastRequest(t, th.Fake, requests+1)
	if gotModel != sup.Model {
		t.Fatalf("the turn ran on %q, the fork returned %q", gotModel, sup.Model)
	}
	want := []string{"user:earlier question one", "assistant:fake reply #1 to: earlier question one", "user:earlier question two", "assistant:fake reply #2 to: earlier question two", "user:new prompt here"}
	if !inOrder(texts, want) {
		t.Fatalf("model input %q lacks %q in order", texts, want)
	}
	canon, err := th.Native().Read(context.Background(), sup.Canonical, harness.ReadRequest{})
	if err != nil || canon.Info.Model != sup.Model {
		t.Fatalf("canonical thread: %+v %v", canon.Info, err)
	}
	// The thread list shows the supervised thread once, not its canonical thread beside it.
	listed := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true})
	var listedIDs []string
	for _, ti := range listed.Threads {
		listedIDs = append(listedIDs, ti.ID)
	}
	if !slices.Contains(listedIDs, sid) || slices.Contains(listedIDs, string(sup.Canonical)) {
		t.Fatalf("thread list %v: want %s without its canonical thread %s", listedIDs, sid, sup.Canonical)
	}

	// The second send goes to the same canonical thread, which keeps the whole history.
	bound := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	if bound.Thread.ID != sid || bound.State != model.SupervisionBound || bound.CanonicalThread != string(sup.Canonical) || !bound.Existing {
		t.Fatalf("continue once bound: %+v", bound)
	}
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "second prompt"})
	hosttest.WaitStopped(t, c, sid)
	_, texts = lastRequest(t, th.Fake, requests+2)
	if !inOrder(texts, append(want, "user:second prompt")) {
		t.Fatalf("second turn input %q", texts)
	}
	if again, _ := th.Store().Supervision(model.ThreadID(sid)); again.Canonical != sup.Canonical {
		t.Fatalf("the binding moved: %+v", again)
	}
	rd = hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: sid, View: model.ViewMessages, Limit: 100})
	if rd.Thread.ID != sid || len(rd.Messages) != 4 || rd.Messages[0].Text != "new prompt here" || rd.NextCursor == "" {
		t.Fatalf("read bound: %+v", rd)
	}
	older := hosttest.Call[api.ThreadReadResult](t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: sid, View: model.ViewMessages, Cursor: rd.NextCursor})
	if len(older.Messages) != 4 || older.Messages[0].Text != "earlier question one" || older.NextCursor != "" {
		t.Fatalf("history page after the canonical messages: %+v", older)
	}

	// The source: byte for byte unchanged, never loaded here, still listed.
	after, err := os.ReadFile(rollout)
	if err != nil || string(after) != string(before) {
		t.Fatalf("the source's rollout changed (%v)", err)
	}
	if slices.Contains(loadedHere(t, th), src) {
		t.Fatal("the source was loaded")
	}
	sessions := hosttest.Call[api.CatalogSessionsResult](t, c, api.MethodCatalogSessions, api.CatalogSessionsParams{Host: catalog.LocalHostID})
	if !slices.Contains(hosttest.CatalogIDs(sessions.Hosts[0].Sessions), src) {
		t.Fatalf("the source left the catalog: %v", hosttest.CatalogIDs(sessions.Hosts[0].Sessions))
	}
}

// Scenario: S003-07, S003-09 — after a restart the canonical thread is resumed without
// overrides and keeps the model Codex persisted, even when the configured model changed; a
// model on send is refused for a supervised thread (model-locked) and for any other thread.
func TestS003_07_LaterTurnsResumeTheCanonicalThreadWithoutOverrides(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	src, _ := codexfixture.StoredThread(t, th.CodexHome, "", "hello")
	sid := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}).Thread.ID
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "first"})
	hosttest.WaitStopped(t, c, sid)
	sup, _ := th.Store().Supervision(model.ThreadID(sid))

	hosttest.CallErr(t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "x", Model: "gpt-5.5"}, model.CodeFailedPrecondition)
	hosttest.CallErr(t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: src, Message: "x", Model: "gpt-5.5"}, model.CodeInvalidArgument)

	// Codex's configured model changes; the canonical thread keeps its own.
	cfgPath := filepath.Join(th.CodexHome, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), `model = "mock-model"`, `model = "gpt-5.6-terra"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	th.Restart()
	c = th.Client("ops")
	n := len(th.Fake.Requests())
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "after restart"})
	done := hosttest.WaitStopped(t, c, sid)
	if done.Result == nil || done.Result.Status != model.TurnCompleted {
		t.Fatalf("turn after restart: %+v", done.Result)
	}
	gotModel, texts := lastRequest(t, th.Fake, n+1)
	if gotModel != sup.Model || !inOrder(texts, []string{"user:hello", "user:first", "user:after restart"}) {
		t.Fatalf("after restart: model %q (bound %q), input %q", gotModel, sup.Model, texts)
	}
	if again, _ := th.Store().Supervision(model.ThreadID(sid)); again.Canonical != sup.Canonical || again.Model != sup.Model {
		t.Fatalf("the binding changed: %+v", again)
	}
}

// Scenario: S003-13 — an active source offers no branch; once a branch exists it still opens
// while the source runs again.
func TestS003_13_ActiveSourceOffersNoBranchButItsBranchOpens(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	src := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "[[mode:hang]] hold on", Cwd: t.TempDir()}).Thread.ID
	me := hosttest.CallErr(t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}, model.CodeFailedPrecondition)
	if !strings.Contains(me.Message, "active") {
		t.Fatalf("active source: %v", me)
	}
	hosttest.Call[api.ThreadCancelResult](t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: src})
	hosttest.WaitStopped(t, c, src)

	res := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	if res.Existing || res.State != model.SupervisionPending {
		t.Fatalf("continue of the idle source: %+v", res)
	}
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: src, Message: "[[mode:hang]] again"})
	again := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	if !again.Existing || again.Thread.ID != res.Thread.ID {
		t.Fatalf("continue of the active source with a branch: %+v", again)
	}
	hosttest.Call[api.ThreadCancelResult](t, c, api.MethodThreadCancel, api.ThreadCancelParams{Thread: src})
	hosttest.WaitStopped(t, c, src)
}

// A branch of an extra Codex home runs its canonical thread in that home, through a Codex
// harness of its own; the default home never sees it.
func TestContinueOnAnExtraHomeRunsThere(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	extra := codextest.NewHome(t, th.Fake.URL())
	src, _ := codexfixture.StoredThread(t, extra, "", "extra question")
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
	xid := catalog.ExtraHostID(extra)
	hosttest.CallErr(t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}, model.CodeThreadNotFound)
	res := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src, Host: xid})
	if res.Host != xid || res.History == nil || res.History.Messages != 2 {
		t.Fatalf("continue: %+v", res)
	}
	n := len(th.Fake.Requests())
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: res.Thread.ID, Message: "branch prompt"})
	hosttest.WaitStopped(t, c, res.Thread.ID)
	_, texts := lastRequest(t, th.Fake, n+1)
	if !inOrder(texts, []string{"user:extra question", "user:branch prompt"}) {
		t.Fatalf("model input %q", texts)
	}
	sup, _ := th.Store().Supervision(model.ThreadID(res.Thread.ID))
	found, _ := filepath.Glob(filepath.Join(extra, "sessions", "*", "*", "*", "*"+string(sup.Canonical)+".jsonl"))
	if len(found) != 1 {
		t.Fatalf("the canonical thread %s is not stored in the extra home", sup.Canonical)
	}
	if _, err := th.Native().Read(context.Background(), sup.Canonical, harness.ReadRequest{}); !model.IsCode(err, model.CodeThreadNotFound) {
		t.Fatalf("the default home knows the canonical thread: %v", err)
	}
	th.Shutdown()
	if pids := hosttest.CodexProcesses(extra); len(pids) != 0 {
		t.Fatalf("the extra home's App Servers outlived the runtime: %v", pids)
	}
}
