package api

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Before authentication only a small frame is buffered: a longer line is refused and the
// connection closed, while the same line after auth is fine.
func TestUnauthenticatedLineLimit(t *testing.T) {
	s := startServer(t, ServerOptions{MaxUnauthLineBytes: 1024})
	r := dialRaw(t, s.endpoint)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"auth","params":{"token":"` + strings.Repeat("x", 4096) + `"}}`)
	m := r.recv()
	if m.Error == nil {
		t.Fatalf("a 4 KiB line before auth was accepted: %+v", m)
	}
	wantCode(t, decodeError(m.Error), model.CodeInvalidArgument)
	r.expectClosed()

	r = dialRaw(t, s.endpoint)
	r.auth()
	r.send(`{"jsonrpc":"2.0","id":2,"method":"echo","params":"` + strings.Repeat("y", 4096) + `"}`)
	if m := r.recv(); m.Error != nil {
		t.Fatalf("a 4 KiB line after auth: %+v", m.Error)
	}
}

// Past MaxInflight a request is answered at once with RESOURCE_EXHAUSTED, a hint and the
// limit; the connection stays usable, and the requests in flight still complete.
func TestInflightLimitPerConnection(t *testing.T) {
	s := startServer(t, ServerOptions{MaxInflight: 3})
	r := dialRaw(t, s.endpoint)
	r.auth()
	for i := 1; i <= 3; i++ {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"slow"}`, i))
		<-s.h.started
	}
	r.send(`{"jsonrpc":"2.0","id":4,"method":"slow"}`)
	m := r.recv()
	if string(m.ID) != "4" || m.Error == nil {
		t.Fatalf("the fourth request: %+v", m)
	}
	me := wantCode(t, decodeError(m.Error), model.CodeResourceExhausted)
	if me.Hint == "" || me.Details["limit"] != float64(3) {
		t.Fatalf("error %+v lacks the hint or the limit", me)
	}
	// Another connection is not affected.
	var out string
	if err := call(t, dial(t, s.endpoint), "echo", "hi", &out); err != nil || out != "hi" {
		t.Fatalf("another connection: %q %v", out, err)
	}
	close(s.h.release)
	for range 3 {
		if m := r.recv(); m.Error != nil {
			t.Fatalf("a request in flight failed: %+v", m.Error)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":5,"method":"echo","params":1}`)
	if m := r.recv(); m.Error != nil {
		t.Fatalf("after the load: %+v", m.Error)
	}
}

// InflightLimit lifts the limit for a caller (the runtime's operator client).
func TestInflightLimitHook(t *testing.T) {
	s := startServer(t, ServerOptions{MaxInflight: 1, InflightLimit: func(c Caller) int {
		if c == testCaller {
			return -1
		}
		return 0
	}})
	r := dialRaw(t, s.endpoint)
	r.auth()
	for i := 1; i <= 5; i++ {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"slow"}`, i))
		<-s.h.started
	}
	close(s.h.release)
	for range 5 {
		if m := r.recv(); m.Error != nil {
			t.Fatalf("unlimited caller refused: %+v", m.Error)
		}
	}
}

// A flood of unauthenticated connections past MaxUnauthConns closes the oldest ones, so a
// real client still gets in; past MaxConns (and on the Unix socket its reserve) a
// connection is refused with RESOURCE_EXHAUSTED.
func TestConnectionCaps(t *testing.T) {
	s := startServer(t, ServerOptions{MaxUnauthConns: 4, MaxConns: 8, UnixReserve: 1, AuthTimeout: time.Minute, UnauthGrace: -1})
	var idle []*rawConn
	for range 10 {
		idle = append(idle, dialRaw(t, s.endpoint))
	}
	// The first ones were closed to make room; the real client authenticates and is served.
	idle[0].expectClosed()
	var out string
	c := dial(t, s.endpoint)
	if err := call(t, c, "echo", "served", &out); err != nil || out != "served" {
		t.Fatalf("a real client under the flood: %q %v", out, err)
	}
	// Every open connection counts toward MaxConns: the client evicted one more idle one (3
	// left), so the client and 4 more fill it.
	for range 4 {
		r := dialRaw(t, s.endpoint)
		r.auth()
	}
	dialRaw(t, s.endpoint) // the Unix socket's reserve takes one more
	r := dialRaw(t, s.endpoint)
	m := r.recv()
	if m.Error == nil {
		t.Fatalf("a connection past MaxConns: %+v", m)
	}
	wantCode(t, decodeError(m.Error), model.CodeResourceExhausted)
	r.expectClosed()
}

// A burst of real clients connecting at once, more than MaxUnauthConns, is served: up to
// unauthBurst times that, a connection still within UnauthGrace is never closed to make room
// (100 agents calling delegate at once did this).
func TestABurstOfClientsPastTheUnauthenticatedCapIsServedInTurn(t *testing.T) {
	s := startServer(t, ServerOptions{MaxUnauthConns: 4, MaxConns: 64, AuthTimeout: time.Minute, UnauthGrace: time.Minute})
	var burst []*rawConn
	for range 12 {
		burst = append(burst, dialRaw(t, s.endpoint))
	}
	for _, r := range burst {
		r.auth()
	}
}
