package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// testNode is a paired node on a real loopback socket: a runtime API server whose node
// commands answer from a fakeConn, recording every invocation.
type testNode struct {
	srv      *api.Server
	addr     string
	conn     *fakeConn
	commands []string

	mu      sync.Mutex
	invoked []string
	entered chan string   // receives a command as it starts, when set
	block   chan struct{} // commands wait on it, when set
}

const testNodeToken = "0123456789abcdef0123456789abcdef-node"

func startTestNode(t *testing.T, conn *fakeConn, commands ...string) *testNode {
	t.Helper()
	if len(commands) == 0 {
		commands = api.NodeCommands
	}
	n := &testNode{conn: conn, commands: commands}
	n.srv = api.NewServer(n, api.ServerOptions{Version: "test"})
	ep, err := n.srv.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, n.addr, _ = api.ParseEndpoint(ep)
	go func() { _ = n.srv.Serve(context.Background()) }()
	t.Cleanup(func() { _ = n.srv.Close() })
	return n
}

func (n *testNode) Authenticate(token string) (api.Caller, bool) {
	return api.Caller{Kind: api.CallerNode, Client: "gw"}, token == testNodeToken
}

func (n *testNode) Subscribe(ctx context.Context, fn func(api.Event)) {}

func (n *testNode) SubscribeCaller(context.Context, api.Caller, func(api.Event)) {}

// Authorize refuses the event stream: a node answers node commands only.
func (n *testNode) Authorize(api.Caller, string) error {
	return model.Errorf(model.CodePermissionDenied, "", "a node serves node commands only")
}

func (n *testNode) Handle(ctx context.Context, _ api.Caller, method string, params json.RawMessage) (any, error) {
	if method == api.MethodNodeDescribe {
		return api.NodeDescribeResult{Version: "test", Commands: n.commands}, nil
	}
	var p api.NodeInvokeParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.invoked = append(n.invoked, p.Command)
	entered, block := n.entered, n.block
	n.mu.Unlock()
	if entered != nil {
		entered <- p.Command
	}
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var out json.RawMessage
	var err error
	switch p.Command {
	case api.NodeCmdThreadsList:
		var q api.NodeThreadsListParams
		_ = json.Unmarshal(p.Params, &q)
		err = n.conn.Call(ctx, "thread/list", map[string]any{"cursor": q.Cursor, "limit": q.Limit}, &out)
	case api.NodeCmdTurnsList:
		var q api.NodeTurnsListParams
		_ = json.Unmarshal(p.Params, &q)
		err = n.conn.Call(ctx, "thread/turns/list", turnsParams{ThreadID: q.ThreadID, Cursor: q.Cursor, Limit: q.Limit, ItemsView: q.ItemsView, SortDirection: q.SortDirection}, &out)
	default:
		return nil, model.Errorf(model.CodeInvalidArgument, "", "unexpected %s", p.Command)
	}
	var rpc *appserver.RPCError
	if errors.As(err, &rpc) {
		return nil, model.Errorf(model.CodeNodeInvokeFailed, "", "refused").WithDetail(api.NodeDetailRPCCode, rpc.Code).WithDetail(api.NodeDetailRPCMessage, rpc.Message)
	}
	return out, err
}

func (n *testNode) invocations(command string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for _, c := range n.invoked {
		if c == command {
			k++
		}
	}
	return k
}

func allowAll(string) bool { return true }

// nodeFixture is a catalog with a local fake host and one paired node.
func nodeFixture(t *testing.T, node *testNode, allows func(string) bool, opts Options) (*Catalog, *fakeSource, *clock) {
	t.Helper()
	clk := newClock()
	local := &fakeSource{conn: &fakeConn{threads: []map[string]any{fakeThread(1, "local one")}}}
	opts.Now = clk.now
	opts.ReadAheadPages = -1
	src := NewNodeSource("lab", node.addr, testNodeToken, allows, clk.now)
	cat, err := New([]HostSpec{{ID: LocalHostID, Default: true, Source: local}, {ID: NodeHostID("lab"), Source: src}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat, local, clk
}

func nodeThreads(n int) *fakeConn {
	f := &fakeConn{}
	for i := range n {
		f.threads = append(f.threads, fakeThread(500+i, "node thread"))
	}
	return f
}

func hostOf(t *testing.T, res api.CatalogSessionsResult, id string) api.CatalogHostSessions {
	t.Helper()
	for _, h := range res.Hosts {
		if h.Host == id {
			return h
		}
	}
	t.Fatalf("no host %s", id)
	return api.CatalogHostSessions{}
}

// Scenario: S003-01 (paired node) — a node's rows come through its versioned list command,
// projected like local rows, grouped under node:<name>; transcripts through its turns command.
func TestNodeHostListsAndReadsThroughVersionedCommands(t *testing.T) {
	t.Parallel()
	node := startTestNode(t, nodeThreads(3))
	node.conn.turns = func(p turnsParams) (json.RawMessage, error) {
		return json.RawMessage(`{"data":[{"id":"t1","status":"completed","items":[{"type":"userMessage","id":"i1","content":[{"type":"text","text":"hi node"}]}]}],"nextCursor":null,"backwardsCursor":null}`), nil
	}
	cat, _, _ := nodeFixture(t, node, allowAll, Options{})
	res, err := cat.List(context.Background(), api.CatalogSessionsParams{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nh := hostOf(t, res, "node:lab")
	if nh.Error != nil || len(nh.Sessions) != 3 || nh.Sessions[0].ID != fakeThread(500, "")["id"] {
		t.Fatalf("node rows %+v", nh)
	}
	if b, _ := json.Marshal(nh); has(string(b), "SECRET") || has(string(b), "deadbeef") {
		t.Fatalf("node rows leak hidden fields: %s", b)
	}
	if node.invocations(api.NodeCmdThreadsList) != 1 {
		t.Fatalf("invocations %v", node.invoked)
	}
	tr, err := cat.Transcript(context.Background(), api.CatalogTranscriptParams{Thread: nh.Sessions[0].ID, Host: "node:lab"})
	if err != nil || len(tr.Turns) != 1 || tr.Turns[0].Messages[0].Text != "hi node" {
		t.Fatalf("node transcript %+v, %v", tr, err)
	}
	hosts := cat.Hosts(context.Background())
	if h := hosts.Hosts[1]; h.Kind != api.CatalogHostNode || h.Health.State != api.CatalogHealthOK ||
		!slices.Equal(h.Capabilities, []string{api.CatalogCapList, api.CatalogCapTranscript, api.CatalogCapContinue}) {
		t.Fatalf("node host %+v", h)
	}
}

// Scenario: S003-03 — a node killed while it lists: its host fails alone with NODE_OFFLINE and
// no rows, the local host keeps its rows, and the node's threads are not marked offline.
func TestS003_03_NodeKilledMidListFailsOnlyItsHost(t *testing.T) {
	t.Parallel()
	node := startTestNode(t, nodeThreads(2))
	cat, _, _ := nodeFixture(t, node, allowAll, Options{})
	node.mu.Lock()
	node.entered, node.block = make(chan string, 4), make(chan struct{})
	node.mu.Unlock()
	done := make(chan api.CatalogSessionsResult, 1)
	go func() {
		res, err := cat.List(context.Background(), api.CatalogSessionsParams{}, nil)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if cmd := <-node.entered; cmd != api.NodeCmdThreadsList {
		t.Fatalf("node got %s first", cmd)
	}
	_ = node.srv.Close() // the node dies with the list in flight
	var res api.CatalogSessionsResult
	select {
	case res = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the list did not end after the node died")
	}
	nh := hostOf(t, res, "node:lab")
	if nh.Error == nil || nh.Error.Code != model.CodeNodeOffline || len(nh.Sessions) != 0 {
		t.Fatalf("node host after kill %+v", nh)
	}
	if lh := hostOf(t, res, LocalHostID); lh.Error != nil || len(lh.Sessions) != 1 || lh.Sessions[0].Status != "notLoaded" {
		t.Fatalf("local host %+v", lh)
	}
	if h := cat.Hosts(context.Background()).Hosts[1]; h.Health.State != api.CatalogHealthError || h.Health.Code != string(model.CodeNodeOffline) {
		t.Fatalf("node health %+v", h)
	}
}

// Scenario: S003-20 — no node row is archived, and nothing but the two read commands ever
// reaches a node through the catalog's connection.
func TestS003_20_NodeArchiveAndOtherMethodsNeverReachTheNode(t *testing.T) {
	t.Parallel()
	node := startTestNode(t, nodeThreads(1))
	cat, _, _ := nodeFixture(t, node, allowAll, Options{})
	id := fakeThread(500, "")["id"].(string)
	_, err := cat.Archive(context.Background(), api.CatalogArchiveParams{Thread: id, Host: "node:lab", ConfirmNoOtherRunner: true}, nil)
	wantCode(t, err, model.CodeFailedPrecondition)
	src, _ := cat.NodeSource("node:lab")
	conn, err := src.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"thread/read", "thread/archive", "thread/fork", "thread/resume", "turn/start"} {
		wantCode(t, conn.Call(context.Background(), m, map[string]any{"threadId": id}, nil), model.CodeFailedPrecondition)
	}
	wantCode(t, conn.Call(context.Background(), "thread/list", listParams{Limit: 5, Archived: true}, nil), model.CodeFailedPrecondition)
	node.mu.Lock()
	defer node.mu.Unlock()
	if len(node.invoked) != 0 {
		t.Fatalf("node got %v", node.invoked)
	}
}

// A node that refuses the gateway's token is NODE_INVOKE_FAILED with the way to pair again;
// a node that is not there is NODE_OFFLINE.
func TestNodeHostErrors(t *testing.T) {
	t.Parallel()
	node := startTestNode(t, nodeThreads(1))
	src := NewNodeSource("lab", node.addr, "wrong-token-0123456789abcdef0123456789", allowAll, nil)
	defer src.Close()
	_, err := src.Conn(context.Background())
	wantCode(t, err, model.CodeNodeInvokeFailed)
	if me := model.AsError(err); !has(me.Hint, "node pair") {
		t.Fatalf("hint %q", me.Hint)
	}
	_ = node.srv.Close()
	gone := NewNodeSource("lab", node.addr, testNodeToken, allowAll, nil)
	defer gone.Close()
	_, err = gone.Conn(context.Background())
	wantCode(t, err, model.CodeNodeOffline)
}
