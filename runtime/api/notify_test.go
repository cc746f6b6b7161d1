package api

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"
)

// progressHandler is testHandler plus "progress": it notifies the call's own connection of
// three steps, then answers.
type progressHandler struct{ *testHandler }

func (h progressHandler) Handle(ctx context.Context, caller Caller, method string, params json.RawMessage) (any, error) {
	if method != "progress" {
		return h.testHandler.Handle(ctx, caller, method, params)
	}
	for i := 1; i <= 3; i++ {
		if !Notify(ctx, Event{Type: "step", Thread: strconv.Itoa(i)}) {
			return nil, context.Canceled
		}
	}
	return "done", nil
}

func startProgressServer(t *testing.T) (*testHandler, string) {
	t.Helper()
	h := newTestHandler()
	srv := NewServer(progressHandler{h}, ServerOptions{Version: testVersion})
	ep, err := srv.ListenUnix(filepath.Join(shortDir(t), "rt.sock"))
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(context.Background()) }()
	t.Cleanup(func() { _ = srv.Close() })
	return h, ep
}

// Scenario: S003-L — the events of a call (its progress) reach that call, in order and all
// before its answer, tagged with the call's id; an Events subscriber of the same connection
// never sees them, nor does Notify outside a request do anything.
func TestNotifyReachesOnlyTheCallingRequestBeforeItsAnswer(t *testing.T) {
	h, ep := startProgressServer(t)
	c := dial(t, ep)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	subEvents, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var res string
	if err := c.CallEvents(ctx, "progress", nil, &res, func(ev Event) {
		if len(ev.Request) == 0 {
			t.Errorf("event without its call's id: %+v", ev)
		}
		got = append(got, ev.Thread)
	}); err != nil || res != "done" {
		t.Fatalf("CallEvents: %q %v", res, err)
	}
	if len(got) != 3 || got[0] != "1" || got[1] != "2" || got[2] != "3" {
		t.Fatalf("events of the call: %v", got)
	}
	// A plain Call of the same method drops its events instead of leaking them to subscribers.
	if err := c.Call(ctx, "progress", nil, &res); err != nil {
		t.Fatal(err)
	}
	h.publish(Event{Type: EventThreadStatus, Thread: "marker"})
	if ev := <-subEvents; ev.Thread != "marker" {
		t.Fatalf("the subscriber got a call's event: %+v", ev)
	}
	if Notify(context.Background(), Event{Type: "step"}) {
		t.Fatal("Notify outside a request claimed to send")
	}

	// On the wire, for any client: a string id comes back as the events' request, and the
	// events precede the answer.
	r := dialRaw(t, ep)
	r.auth()
	r.send(`{"jsonrpc":"2.0","id":"call-7","method":"progress"}`)
	for i := 1; i <= 3; i++ {
		m := r.recv()
		var ev Event
		if m.Method != NotificationEvent || json.Unmarshal(m.Params, &ev) != nil || string(ev.Request) != `"call-7"` || ev.Thread != strconv.Itoa(i) {
			t.Fatalf("line %d: %+v %s", i, m, m.Params)
		}
	}
	if m := r.recv(); string(m.ID) != `"call-7"` || string(m.Result) != `"done"` {
		t.Fatalf("answer %+v", m)
	}
}
