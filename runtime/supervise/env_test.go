package supervise

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/store"
)

// The branches are tested on the catalog of a real App Server against the loopback fake
// model, on small fake App Server connections for refusals, and on a paired node that is a
// real runtime API server answering its node commands from fixed rows.

type realEnv struct {
	t    *testing.T
	bin  string
	fake *fakemodel.Server
}

func newRealEnv(t *testing.T) *realEnv {
	t.Helper()
	return &realEnv{t: t, bin: codextest.CodexBin(t), fake: fakemodel.Start(t)}
}

func (e *realEnv) home() string { return codextest.NewHome(e.t, e.fake.URL()) }

// client starts an App Server on home that the test drives (and that is stopped at the end).
func (e *realEnv) client(home string) *appserver.Client {
	e.t.Helper()
	log := filepath.Join(e.t.TempDir(), "app-server.log")
	c, err := appserver.Start(context.Background(), appserver.Config{Bin: e.bin, Env: codextest.Env(home), Dir: e.t.TempDir(), StderrLog: log})
	if err != nil {
		e.t.Fatalf("start app-server: %v", err)
	}
	e.t.Cleanup(func() { _ = c.Close() })
	return c
}

// thread creates a stored thread: started in c and given turns with the texts given.
func (e *realEnv) thread(c *appserver.Client, texts ...string) string {
	e.t.Helper()
	res, err := c.ThreadStart(context.Background(), appserver.ThreadStartParams{Cwd: e.t.TempDir()})
	if err != nil {
		e.t.Fatalf("thread/start: %v", err)
	}
	for _, text := range texts {
		e.turn(c, res.Thread.ID, text)
	}
	return res.Thread.ID
}

func (e *realEnv) turn(c *appserver.Client, id, text string) {
	e.t.Helper()
	done, stop := c.Subscribe(func(m string) bool { return m == "turn/completed" })
	defer stop()
	turn, err := c.TurnStart(context.Background(), appserver.TurnStartParams{ThreadID: id, Input: appserver.TextInput(text)})
	if err != nil {
		e.t.Fatalf("turn/start: %v", err)
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case n := <-done:
			var ev appserver.TurnEvent
			if json.Unmarshal(n.Params, &ev) == nil && ev.ThreadID == id && ev.Turn.ID == turn.ID {
				return
			}
		case <-timeout:
			e.t.Fatalf("turn of %s did not complete", id)
		}
	}
}

func newCatalog(t *testing.T, specs []catalog.HostSpec, opts catalog.Options) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.New(specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	return cat
}

func localSpec(c catalog.Conn) catalog.HostSpec {
	return catalog.HostSpec{ID: catalog.LocalHostID, Default: true, Source: catalog.SourceFunc(func(context.Context) (catalog.Conn, error) { return c, nil })}
}

func newStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "chh"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// newTestBranches keeps branches of cat with a store of their own.
func newTestBranches(t *testing.T, cat *catalog.Catalog) *Branches {
	t.Helper()
	b, err := NewBranches(cat, newStore(t), filepath.Join(t.TempDir(), "supervision"), BranchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantCode(t *testing.T, err error, code model.Code) {
	t.Helper()
	if !model.IsCode(err, code) {
		t.Fatalf("want %s, got %v", code, err)
	}
}

// readConn is an App Server that answers thread/read alone, with read or readErr.
type readConn struct {
	read    map[string]any
	readErr error
}

func (f *readConn) Info() appserver.InitializeResult { return appserver.InitializeResult{} }
func (f *readConn) Pid() int                         { return 1 }

func (f *readConn) Call(_ context.Context, method string, _, out any) error {
	if method != "thread/read" {
		return fmt.Errorf("fake: unexpected %s", method)
	}
	if f.readErr != nil {
		return f.readErr
	}
	b, _ := json.Marshal(map[string]any{"thread": f.read})
	return json.Unmarshal(b, out)
}

// nodeRow is a session as a node's App Server lists it.
func nodeRow(i int) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("01a22b08-0000-7000-8000-%012d", i), "cwd": "/work/project", "status": map[string]any{"type": "notLoaded"},
		"createdAt": 1796000000 - i, "updatedAt": 1796000000 - i, "source": "vscode", "modelProvider": "fake", "name": "node thread",
	}
}

// testNode is a paired node on a real loopback socket: a runtime API server that lists its
// rows (one page) and answers every thread's turns with none, recording every invocation.
type testNode struct {
	srv      *api.Server
	addr     string
	commands []string
	rows     []map[string]any

	mu      sync.Mutex
	invoked []string
}

const testNodeToken = "0123456789abcdef0123456789abcdef-node"

func startTestNode(t *testing.T, rows []map[string]any, commands ...string) *testNode {
	t.Helper()
	n := &testNode{commands: commands, rows: rows}
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

func (n *testNode) Subscribe(context.Context, func(api.Event)) {}

func (n *testNode) SubscribeCaller(context.Context, api.Caller, func(api.Event)) {}

// Authorize refuses the event stream: a node answers node commands only.
func (n *testNode) Authorize(api.Caller, string) error {
	return model.Errorf(model.CodePermissionDenied, "", "a node serves node commands only")
}

func (n *testNode) Handle(_ context.Context, _ api.Caller, method string, params json.RawMessage) (any, error) {
	if method == api.MethodNodeDescribe {
		return api.NodeDescribeResult{Version: "test", Commands: n.commands}, nil
	}
	var p api.NodeInvokeParams
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.invoked = append(n.invoked, p.Command)
	n.mu.Unlock()
	switch p.Command {
	case api.NodeCmdThreadsList:
		return map[string]any{"data": n.rows, "nextCursor": nil}, nil
	case api.NodeCmdTurnsList:
		return json.RawMessage(`{"data":[],"nextCursor":null,"backwardsCursor":null}`), nil
	}
	return nil, model.Errorf(model.CodeInvalidArgument, "", "unexpected %s", p.Command)
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

// nodeCatalog is a catalog with a local fake host and the paired node lab.
func nodeCatalog(t *testing.T, node *testNode, allows func(string) bool) *catalog.Catalog {
	t.Helper()
	local := localSpec(&readConn{})
	src := catalog.NewNodeSource("lab", node.addr, testNodeToken, allows, nil)
	return newCatalog(t, []catalog.HostSpec{local, {ID: catalog.NodeHostID("lab"), Source: src}}, catalog.Options{ReadAheadPages: -1})
}
