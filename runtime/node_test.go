package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/supervise"
)

// addNodeClient makes a node token on th's config.toml, as `codexhost node allow` does.
func (th *testHost) addNodeClient(name string, commands ...string) string {
	th.t.Helper()
	cfg, err := config.Load(th.home)
	if err != nil {
		th.t.Fatal(err)
	}
	tok, err := cfg.AddNodeClient(name)
	if err != nil {
		th.t.Fatal(err)
	}
	cfg.Node.Commands = commands
	if err := config.Save(th.home, cfg); err != nil {
		th.t.Fatal(err)
	}
	return tok
}

// Scenario: S003-18 (node side) — a node token reaches the node methods and nothing else of
// the runtime; other callers cannot call the node methods; a node offers only what its
// config advertises.
func TestNodeTokenReachesOnlyNodeMethods(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{grants: scopeGrants})
	tok := th.addNodeClient("gw", api.NodeCmdThreadsList)
	node := th.dial(tok)
	if node.Caller().Kind != api.CallerNode {
		t.Fatalf("caller %+v", node.Caller())
	}
	var d api.NodeDescribeResult
	if err := node.Call(context.Background(), api.MethodNodeDescribe, nil, &d); err != nil || len(d.Commands) != 1 || d.Commands[0] != api.NodeCmdThreadsList {
		t.Fatalf("describe %+v, %v", d, err)
	}
	for _, m := range []string{api.MethodThreadList, api.MethodDelegateStart, api.MethodCatalogSessions, api.MethodCatalogHosts, api.MethodHarnessList, api.MethodRuntimeInfo, api.MethodEventsSubscribe} {
		callErr(t, node, m, struct{}{}, model.CodePermissionDenied)
	}
	// Not advertised: refused before anything runs.
	callErr(t, node, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdSessionResume, Params: json.RawMessage(`{"threadId":"019a0000-0000-7000-8000-000000000001","prompt":"x"}`)}, model.CodeFailedPrecondition)
	for _, who := range []*api.Client{th.client("admin"), th.runtimeClient()} {
		callErr(t, who, api.MethodNodeDescribe, nil, model.CodePermissionDenied)
		callErr(t, who, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdThreadsList}, model.CodePermissionDenied)
	}
}

// Scenario: S003-20 (node side) — the list command passes the projection fields only and
// never archived threads; the turns command is bounded.
func TestNodeCommandsProjectAndBound(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true})
	id, _ := codexfixture.StoredThread(t, th.codexHome, "", "node question")
	node := th.dial(th.addNodeClient("gw"))
	ctx := context.Background()
	var raw json.RawMessage
	if err := node.Call(ctx, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdThreadsList, Params: json.RawMessage(`{"limit":10}`)}, &raw); err != nil {
		t.Fatal(err)
	}
	var page struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil || len(page.Data) != 1 || page.Data[0]["id"] != id {
		t.Fatalf("list %s (%v)", raw, err)
	}
	for _, hidden := range []string{"preview", "path", "turns"} {
		if _, ok := page.Data[0][hidden]; ok {
			t.Fatalf("node list passes %q: %s", hidden, raw)
		}
	}
	callErr(t, node, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdThreadsList, Params: json.RawMessage(`{"limit":101}`)}, model.CodeInvalidArgument)
	callErr(t, node, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdTurnsList, Params: json.RawMessage(`{"threadId":"` + id + `","limit":51}`)}, model.CodeInvalidArgument)
	if err := node.Call(ctx, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdTurnsList, Params: json.RawMessage(`{"threadId":"` + id + `","limit":5}`)}, &raw); err != nil {
		t.Fatal(err)
	}
	var turns struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(raw, &turns); err != nil || len(turns.Data) != 1 {
		t.Fatalf("turns %s (%v)", raw, err)
	}
	// An unknown thread is the App Server's answer, carried for the gateway to interpret.
	me := callErr(t, node, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdTurnsList, Params: json.RawMessage(`{"threadId":"019a0000-0000-7000-8000-000000000001","limit":5}`)}, model.CodeNodeInvokeFailed)
	if _, ok := me.Details[api.NodeDetailRPCMessage]; !ok {
		t.Fatalf("no App Server answer in %+v", me)
	}
}

// Scenario: S003-19 (node side) — a resume runs the exact thread with the prompt on stdin and
// returns the final text; a second resume of the same thread while the first runs is refused
// by the node (THREAD_BUSY), not queued.
func TestNodeResumeRunsTheExactThreadAndRefusesOverlap(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{codex: true})
	id, _ := codexfixture.StoredThread(t, th.codexHome, "", "first question")
	before := len(th.fake.Requests())
	th.fake.Enqueue(fakemodel.Slow(50*time.Millisecond, 2*time.Second))
	tok := th.addNodeClient("gw")
	node, other := th.dial(tok), th.dial(tok)
	params := json.RawMessage(`{"threadId":"` + id + `","prompt":"resumed prompt"}`)
	type answer struct {
		res api.NodeSessionResumeResult
		err error
	}
	first := make(chan answer, 1)
	go func() {
		var a answer
		a.err = node.Call(context.Background(), api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdSessionResume, Params: params}, &a.res)
		first <- a
	}()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	reqs, err := th.fake.WaitRequests(ctx, before+1)
	if err != nil {
		t.Fatal(err)
	}
	if got := reqs[len(reqs)-1]; got.UserText != "resumed prompt" || got.Header.Get("Thread-Id") != id {
		t.Fatalf("the model got %q on thread %q", got.UserText, got.Header.Get("Thread-Id"))
	}
	callErr(t, other, api.MethodNodeInvoke, api.NodeInvokeParams{Command: api.NodeCmdSessionResume, Params: params}, model.CodeThreadBusy)
	a := <-first
	if a.err != nil || a.res.ThreadID != id || a.res.FinalText == "" {
		t.Fatalf("resume %+v, %v", a.res, a.err)
	}
}

// Scenario: S003-08 (node binding) — a supervised thread bound to a node that is no longer
// paired fails closed: its send is refused and starts nothing anywhere else, its result view
// still reads, and an agent may not send to it at all.
func TestNodeBoundThreadFailsClosedWhenTheNodeIsGone(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{operators: []string{"ops"}})
	now := time.Now().UTC()
	sid, src := model.ThreadID("019a0000-0000-7000-8000-0000000000e1"), model.ThreadID("019a0000-0000-7000-8000-0000000000e2")
	sup := model.Supervision{V: 1, Thread: sid, Host: "node:gone", Source: src, State: model.SupervisionBound, Binding: model.BindingNodeSession,
		Canonical: src, CreatedAt: now, UpdatedAt: now, BoundAt: now}
	if _, _, err := th.Store().CreateSupervision(sup, model.ThreadRecord{V: 1, ID: sid, Harness: model.NativeHarness, CreatedAt: now, UpdatedAt: now, RecencyAt: now}); err != nil {
		t.Fatal(err)
	}
	ops := th.client("ops")
	me := callErr(t, ops, api.MethodThreadSend, api.ThreadSendParams{Thread: string(sid), Message: "hello"}, model.CodeFailedPrecondition)
	if !strings.Contains(me.Message, "not paired") {
		t.Fatalf("send: %v", me)
	}
	rd := call[api.ThreadReadResult](t, ops, api.MethodThreadRead, api.ThreadReadParams{Thread: string(sid)})
	if rd.Thread.ID != string(sid) || rd.Thread.Status != model.ThreadIdle || rd.Result != nil {
		t.Fatalf("read: %+v", rd)
	}
	callErr(t, th.runtimeClient(), api.MethodThreadSend, api.ThreadSendParams{Thread: string(sid), Message: "hello"}, model.CodePermissionDenied)
	callErr(t, ops, api.MethodThreadCancel, api.ThreadCancelParams{Thread: string(sid)}, model.CodeFailedPrecondition)
}

// The latest turn of a node-bound thread outlives a restart of the runtime: a finished turn
// still reads with its result, and a turn the runtime was waiting for when it stopped (its
// connection, and so the node's run, ended with it) reads as interrupted, with the reason.
func TestNodeTurnOutlivesARestart(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{operators: []string{"ops"}})
	now := time.Now().UTC()
	sid, src := model.ThreadID("019a0000-0000-7000-8000-0000000000f1"), model.ThreadID("019a0000-0000-7000-8000-0000000000f2")
	sup := model.Supervision{V: 1, Thread: sid, Host: "node:lab", Source: src, State: model.SupervisionBound, Binding: model.BindingNodeSession,
		Canonical: src, CreatedAt: now, UpdatedAt: now, BoundAt: now}
	if _, _, err := th.Store().CreateSupervision(sup, model.ThreadRecord{V: 1, ID: sid, Harness: model.NativeHarness, CreatedAt: now, UpdatedAt: now, RecencyAt: now}); err != nil {
		t.Fatal(err)
	}
	done := supervise.NodeTurn{TurnID: "t1", Status: model.TurnCompleted, Text: "the node's answer", StartedAt: now, EndedAt: now.Add(time.Second)}
	if err := th.supervise.Branches().SaveNodeTurn(sid, done); err != nil {
		t.Fatal(err)
	}
	th.restart()
	rd := call[api.ThreadReadResult](t, th.client("ops"), api.MethodThreadRead, api.ThreadReadParams{Thread: string(sid)})
	if rd.Result == nil || rd.Result.Status != model.TurnCompleted || rd.Result.Text != "the node's answer" || rd.Thread.Status != model.ThreadIdle {
		t.Fatalf("after a restart: %+v %+v", rd.Thread, rd.Result)
	}

	running := supervise.NodeTurn{TurnID: "t2", Status: model.TurnInProgress, StartedAt: now}
	if err := th.supervise.Branches().SaveNodeTurn(sid, running); err != nil {
		t.Fatal(err)
	}
	th.restart()
	rd = call[api.ThreadReadResult](t, th.client("ops"), api.MethodThreadRead, api.ThreadReadParams{Thread: string(sid)})
	if rd.Thread.Status != model.ThreadIdle || rd.Result == nil || rd.Result.TurnID != "t2" || rd.Result.Status != model.TurnInterrupted || rd.Result.Error != supervise.LostTurn {
		t.Fatalf("a turn cut off by the restart: %+v %+v", rd.Thread, rd.Result)
	}
	if again, ok, err := th.supervise.Branches().LoadNodeTurn(sid); err != nil || !ok || again.Status != model.TurnInterrupted {
		t.Fatalf("the interruption was not recorded: %+v %v", again, err)
	}
	// The file is conversation content: private to the home's owner.
	if st, err := os.Stat(filepath.Join(th.home, supervise.DirName, string(sid)+".turn.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("turn file: %v %v", st, err)
	}
}
