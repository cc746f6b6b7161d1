package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Only the operator client may forward, and only on behalf of a configured client: anything
// else would let a client act as another.
func TestForwardOnlyFromOperator(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"a", config.OperatorClient}})
	as := api.ForwardParams{Caller: api.Caller{Kind: api.CallerClient, Client: "a"}, Method: api.MethodRuntimeInfo}
	callErr(t, th.client("a"), api.MethodRuntimeForward, as, model.CodePermissionDenied)
	callErr(t, th.runtimeClient(), api.MethodRuntimeForward, as, model.CodePermissionDenied)

	op := th.client(config.OperatorClient)
	info := call[api.RuntimeInfo](t, op, api.MethodRuntimeForward, as)
	if info.Home != th.home {
		t.Errorf("forwarded runtime.info: %+v", info)
	}
	for _, bad := range []api.ForwardParams{
		{Caller: api.Caller{Kind: api.CallerRuntime}, Method: api.MethodRuntimeInfo},
		{Caller: api.Caller{Kind: api.CallerClient, Client: "nobody"}, Method: api.MethodRuntimeInfo},
		{Caller: as.Caller, Method: api.MethodRuntimeForward},
	} {
		callErr(t, op, api.MethodRuntimeForward, bad, model.CodeInvalidArgument)
	}
}

// A second host on a held home follows: its TCP listener answers through the first, events
// included, and it takes the home over when the first closes.
func TestOpenOrFollowTakesOver(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"a", config.OperatorClient}})
	f := th.startFollower()
	if f.Role() != RoleFollower || len(f.Endpoints()) != 1 || !strings.HasPrefix(f.Endpoints()[0], "tcp://") {
		t.Fatalf("second host: role %s, endpoints %v; want a follower on TCP only", f.Role(), f.Endpoints())
	}
	c, err := api.Dial(context.Background(), f.Endpoints()[0], th.tokens["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events, err := c.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "through the follower"})
	waitStopped(t, th.client("a"), string(res.Thread.ID))
	select {
	case ev := <-events:
		if ev.Thread != string(res.Thread.ID) {
			t.Errorf("first event through the follower: %+v", ev)
		}
	case <-time.After(testWait):
		t.Fatal("no event reached the follower's subscriber")
	}

	th.close()
	select {
	case err := <-f.Promoted():
		if err != nil {
			t.Fatalf("takeover: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not take over within 10 s")
	}
	if f.Role() != RolePrimary || !strings.HasPrefix(f.Endpoints()[0], "unix://") {
		t.Fatalf("after takeover: role %s, endpoints %v", f.Role(), f.Endpoints())
	}
	rc, err := api.Dial(context.Background(), f.Endpoints()[0], f.RuntimeToken())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got := readThread(t, rc, string(res.Thread.ID))
	if got.Thread.ID != res.Thread.ID {
		t.Errorf("the new primary reads %+v", got.Thread)
	}
}

// A node token reaches a node whose listener is a follower: the request is forwarded as a
// node request and answered by the holder. The forwarded kind must match the client's entry,
// so a node client is never forwarded as an external client or the other way round.
func TestNodeRequestsThroughAFollower(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"a", config.OperatorClient}})
	nodeTok := th.addNodeClient("gw", api.NodeCmdThreadsList)
	f := th.startFollower()
	c, err := api.Dial(context.Background(), f.Endpoints()[0], nodeTok)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var d api.NodeDescribeResult
	if err := c.Call(context.Background(), api.MethodNodeDescribe, nil, &d); err != nil || len(d.Commands) != 1 {
		t.Fatalf("describe through the follower: %+v, %v", d, err)
	}
	callErr(t, c, api.MethodThreadList, api.ThreadListParams{}, model.CodePermissionDenied)

	op := th.client(config.OperatorClient)
	for _, bad := range []api.ForwardParams{
		{Caller: api.Caller{Kind: api.CallerClient, Client: "gw"}, Method: api.MethodThreadList},
		{Caller: api.Caller{Kind: api.CallerNode, Client: "a"}, Method: api.MethodNodeDescribe},
	} {
		callErr(t, op, api.MethodRuntimeForward, bad, model.CodeInvalidArgument)
	}
}

// startFollower opens a second host on th's home, with a TCP listener, and serves it until
// the test ends; it follows th until th closes.
func (th *testHost) startFollower() *Host {
	th.t.Helper()
	opts := th.opts
	opts.Listen = "127.0.0.1:0"
	opts.Follow = true
	f, err := OpenOrFollow(context.Background(), opts)
	if err != nil {
		th.t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = f.Serve(context.Background())
	}()
	th.t.Cleanup(func() {
		if err := f.Close(); err != nil {
			th.t.Errorf("close follower: %v", err)
		}
		<-served
	})
	return f
}

// A client that subscribed through a follower keeps its events, each once, after the
// follower took the home over. Its visibility check used to keep asking the follower's
// connection, which then dialed the home's socket, now the runtime's own, and republished
// its own events to itself without end.
func TestSubscriberAfterTakeoverHearsEachEventOnce(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{clients: []string{"a", config.OperatorClient}})
	f := th.startFollower()
	c, err := api.Dial(context.Background(), f.Endpoints()[0], th.tokens["a"])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	events, err := c.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	th.close()
	select {
	case err := <-f.Promoted():
		if err != nil {
			t.Fatalf("takeover: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the follower did not take over within 10 s")
	}
	res := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "after the takeover"})
	waitStopped(t, c, string(res.Thread.ID))
	heard := 0
	quiet := time.NewTimer(time.Second)
	defer quiet.Stop()
	for {
		select {
		case ev := <-events:
			if ev.Thread == string(res.Thread.ID) {
				heard++
			}
			if heard > 50 {
				t.Fatalf("the subscriber heard %d events of one short thread: they echo", heard)
			}
			continue
		case <-quiet.C:
		}
		break
	}
	if heard == 0 {
		t.Fatal("the subscriber heard nothing of its own thread after the takeover")
	}
}
