package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
)

// These tests stay beside the Host: they replace its catalog (Host.fleet) with one over App
// Servers that answer as the test chooses, and one starts a follower runtime. The catalog
// tests that need neither live in runtime/fleet.

// listConn is an App Server that answers thread/list with a fixed page; with a gate it
// blocks inside the call until the gate opens, as a slow or hung host does.
type listConn struct {
	ids     []string
	gate    chan struct{} // nil: answers at once
	entered chan struct{} // receives once the call is inside thread/list
	once    sync.Once
}

func (c *listConn) Info() appserver.InitializeResult { return appserver.InitializeResult{} }
func (c *listConn) Pid() int                         { return 1 }

func (c *listConn) Call(ctx context.Context, method string, params, out any) error {
	if method != "thread/list" {
		return fmt.Errorf("listConn: unexpected %s", method)
	}
	if c.gate != nil {
		c.once.Do(func() { close(c.entered) })
		select {
		case <-c.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	data := make([]map[string]any, 0, len(c.ids))
	for i, id := range c.ids {
		data = append(data, map[string]any{"id": id, "name": "session " + id, "cwd": "/w", "status": map[string]any{"type": "notLoaded"},
			"createdAt": 1796000000 - i, "updatedAt": 1796000000 - i, "source": "cli"})
	}
	b, _ := json.Marshal(map[string]any{"data": data, "nextCursor": nil})
	return json.Unmarshal(b, out)
}

// useCatalog replaces the host's catalog with one over the given hosts, for tests that need
// App Servers that behave in a chosen way.
func (th *testHost) useCatalog(specs []catalog.HostSpec) {
	th.t.Helper()
	cat, err := catalog.New(specs, catalog.Options{ReadAheadPages: -1})
	if err != nil {
		th.t.Fatal(err)
	}
	th.Host.fleet.Use(cat)
}

func connSource(c catalog.Conn) catalog.Source {
	return catalog.SourceFunc(func(context.Context) (catalog.Conn, error) { return c, nil })
}

// Scenario: S003-L — progressive per-host results: a catalog.sessions call that asks for
// progress gets each host's page as an event of its own as soon as that host settles, so a
// slow host holds the others back neither on the wire nor in time; the answer is still the
// aggregate of every host. The events are the caller's alone: another connection, even of the
// same client and subscribed to the runtime's events, sees none of them.
func TestCatalogSessionsProgressSendsEachHostAsItSettles(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{operators: []string{"ops"}})
	const slowID = catalog.LocalHostID + ":slow"
	fast := &listConn{ids: []string{"01a22b08-0000-7000-8000-000000000001", "01a22b08-0000-7000-8000-000000000002"}}
	slow := &listConn{ids: []string{"01a22b08-0000-7000-8000-000000000003"}, gate: make(chan struct{}), entered: make(chan struct{})}
	// The slow host comes first, so order alone cannot make the fast one arrive first.
	th.useCatalog([]catalog.HostSpec{
		{ID: slowID, Source: connSource(slow)},
		{ID: catalog.LocalHostID, Default: true, Source: connSource(fast)},
	})
	ctx := context.Background()
	c := th.client("ops")
	other := th.client("ops")
	otherEvents, err := other.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}

	events := make(chan api.Event, 8)
	type answer struct {
		res api.CatalogSessionsResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		var res api.CatalogSessionsResult
		err := c.CallEvents(ctx, api.MethodCatalogSessions, api.CatalogSessionsParams{Progress: true}, &res, func(ev api.Event) { events <- ev })
		done <- answer{res, err}
	}()

	var first api.Event
	select {
	case first = <-events:
	case a := <-done:
		t.Fatalf("the call answered before any host's event: %+v %v", a.res, a.err)
	case <-time.After(testWait):
		t.Fatal("no event for the fast host while the slow one is still listing")
	}
	if first.Type != api.EventCatalogHost || first.Catalog == nil || first.Catalog.Host != catalog.LocalHostID ||
		!slices.Equal(catalogIDs(first.Catalog.Sessions), fast.ids) || first.Catalog.Error != nil {
		t.Fatalf("first event %+v (catalog %+v)", first, first.Catalog)
	}
	<-slow.entered // the slow host is inside thread/list, held by its gate: it has not settled
	select {
	case a := <-done:
		t.Fatalf("the call answered while the slow host was still listing: %+v", a.res)
	default:
	}

	close(slow.gate)
	a := <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	// CallEvents hands over every event of the call before it returns.
	var second api.Event
	select {
	case second = <-events:
	default:
		t.Fatal("no event for the slow host before the answer")
	}
	if second.Catalog == nil || second.Catalog.Host != slowID || !slices.Equal(catalogIDs(second.Catalog.Sessions), slow.ids) {
		t.Fatalf("second event %+v", second)
	}
	if len(events) != 0 {
		t.Fatalf("more events than hosts: %+v", <-events)
	}
	// The answer is the aggregate, in host order, with the same pages the events carried.
	if len(a.res.Hosts) != 2 || a.res.Hosts[0].Host != slowID || a.res.Hosts[1].Host != catalog.LocalHostID ||
		!slices.Equal(catalogIDs(a.res.Hosts[0].Sessions), slow.ids) || !slices.Equal(catalogIDs(a.res.Hosts[1].Sessions), fast.ids) {
		t.Fatalf("aggregate %+v", a.res)
	}

	// Without progress the call sends no events at all.
	if err := c.CallEvents(ctx, api.MethodCatalogSessions, api.CatalogSessionsParams{}, nil, func(ev api.Event) {
		t.Errorf("event without progress: %+v", ev)
	}); err != nil {
		t.Fatal(err)
	}

	// The other connection: a thread's status event is published after the calls; had the
	// catalog pages been broadcast, they would have come before it.
	d := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "marker"})
	for ev := range otherEvents {
		if ev.Type == api.EventCatalogHost || ev.Catalog != nil || len(ev.Request) > 0 {
			t.Fatalf("another connection got a call's event: %+v", ev)
		}
		if ev.Thread == d.Thread.ID {
			break
		}
	}
}

// Scenario: S003-L — through a follower runtime (a second runtime on a held home, which
// forwards every request) a call's per-host events still reach the caller, ahead of the
// answer, and only the caller: the follower republishes the primary's runtime events to all
// its subscribers, but never another caller's progress.
func TestCatalogSessionsProgressThroughAFollower(t *testing.T) {
	t.Parallel()
	th := newTestHost(t, hostOptions{operators: []string{"ops", config.OperatorClient}})
	fast := &listConn{ids: []string{"01a22b08-0000-7000-8000-000000000001"}}
	slow := &listConn{ids: []string{"01a22b08-0000-7000-8000-000000000002"}, gate: make(chan struct{}), entered: make(chan struct{})}
	th.useCatalog([]catalog.HostSpec{
		{ID: catalog.LocalHostID, Default: true, Source: connSource(fast)},
		{ID: catalog.LocalHostID + ":slow", Source: connSource(slow)},
	})
	f := th.startFollower()
	if f.Role() != RoleFollower {
		t.Fatalf("second host is a %s", f.Role())
	}
	dialF := func() *api.Client {
		c, err := api.Dial(context.Background(), f.Endpoints()[0], th.tokens["ops"])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	c, other := dialF(), dialF()
	otherEvents, err := other.Events(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	events := make(chan api.Event, 4)
	done := make(chan error, 1)
	go func() {
		var res api.CatalogSessionsResult
		done <- c.CallEvents(context.Background(), api.MethodCatalogSessions, api.CatalogSessionsParams{Progress: true}, &res,
			func(ev api.Event) { events <- ev })
	}()
	select {
	case ev := <-events:
		if ev.Catalog == nil || ev.Catalog.Host != catalog.LocalHostID {
			t.Fatalf("first event through the follower %+v", ev)
		}
	case err := <-done:
		t.Fatalf("the call answered before any host's event: %v", err)
	case <-time.After(testWait):
		t.Fatal("no event through the follower while the slow host lists")
	}
	close(slow.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("%d more events, want the slow host's", len(events))
	}
	d := delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "marker"})
	for ev := range otherEvents {
		if ev.Catalog != nil || len(ev.Request) > 0 {
			t.Fatalf("another caller of the follower got a call's event: %+v", ev)
		}
		if ev.Thread == d.Thread.ID {
			break
		}
	}
}

func catalogIDs(ss []api.CatalogSession) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}
