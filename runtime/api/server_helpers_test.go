package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

const (
	clientToken  = "client-secret"
	runtimeToken = "runtime-secret"
	testVersion  = "v0.0.0-test"
	waitLimit    = 5 * time.Second // only bounds a hang; never reached when the code works
)

var testCaller = Caller{Kind: CallerClient, Client: "tester"}

// testHandler serves a few methods that exercise the server: echo, whoami, jitter (answers
// out of order), slow (blocks until released or canceled), fail/boom/panic (errors).
type testHandler struct {
	release  chan struct{}
	started  chan struct{}
	canceled chan struct{}

	mu      sync.Mutex
	methods []string
	hub     Hub // the subscribers, fanned out to as the runtime's hub does
}

func newTestHandler() *testHandler {
	return &testHandler{release: make(chan struct{}), started: make(chan struct{}, 16),
		canceled: make(chan struct{}, 16)}
}

func (h *testHandler) Authenticate(token string) (Caller, bool) {
	switch token {
	case clientToken:
		return testCaller, true
	case runtimeToken:
		return Caller{Kind: CallerRuntime}, true
	case otherToken:
		return otherCaller, true
	}
	return Caller{}, false
}

// SubscribeCaller shows every caller every event.
func (h *testHandler) SubscribeCaller(ctx context.Context, _ Caller, fn func(Event)) {
	h.Subscribe(ctx, fn)
}

// Authorize admits every caller to events.subscribe, as the runtime's table does.
func (h *testHandler) Authorize(Caller, string) error { return nil }

func (h *testHandler) Handle(ctx context.Context, caller Caller, method string, params json.RawMessage) (any, error) {
	h.mu.Lock()
	h.methods = append(h.methods, method)
	h.mu.Unlock()
	switch method {
	case "echo":
		return params, nil
	case "whoami":
		return caller, nil
	case "jitter":
		var p struct{ N int }
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, model.Errorf(model.CodeInvalidArgument, "", "bad params: %v", err)
		}
		time.Sleep(time.Duration(7-p.N%7) * time.Millisecond)
		return p, nil
	case "slow":
		h.started <- struct{}{}
		select {
		case <-ctx.Done():
			h.canceled <- struct{}{}
			return nil, ctx.Err()
		case <-h.release:
			return "released", nil
		}
	case "fail":
		return nil, &model.Error{Code: model.CodeThreadBusy, Message: "thread t1 is busy",
			Hint: "wait for the turn to finish", Details: map[string]any{"thread": "t1", "turn": 3}}
	case "boom":
		return nil, errors.New("disk on fire")
	case "panic":
		panic("kaboom")
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownMethod, method)
}

func (h *testHandler) Subscribe(ctx context.Context, fn func(Event)) { h.hub.Subscribe(ctx, fn) }

// publish calls every subscriber synchronously, as a real fan-out would: it returns only if
// no subscriber blocks.
func (h *testHandler) publish(ev Event) { h.hub.Publish(ev) }

func (h *testHandler) subCount() int {
	h.hub.mu.Lock()
	defer h.hub.mu.Unlock()
	return len(h.hub.subs)
}

func (h *testHandler) saw(method string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.methods {
		if m == method {
			return true
		}
	}
	return false
}

// shortDir is a fresh directory whose paths fit the Unix socket limit, which t.TempDir()
// can exceed with long test names.
func shortDir(tb testing.TB) string {
	d, err := os.MkdirTemp("", "chapi")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(d) })
	return d
}

type testServer struct {
	*Server
	h        *testHandler
	endpoint string
	sock     string
}

func startServer(tb testing.TB, opts ServerOptions) *testServer {
	tb.Helper()
	if opts.AuthFailureDelay == 0 {
		opts.AuthFailureDelay = 10 * time.Millisecond
	}
	opts.Version = testVersion
	h := newTestHandler()
	srv := NewServer(h, opts)
	sock := filepath.Join(shortDir(tb), "rt.sock")
	ep, err := srv.ListenUnix(sock)
	if err != nil {
		tb.Fatal(err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(context.Background()) }()
	tb.Cleanup(func() {
		if err := srv.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
		if err := <-serveErr; err != nil {
			tb.Errorf("Serve: %v", err)
		}
	})
	return &testServer{Server: srv, h: h, endpoint: ep, sock: sock}
}

func dial(tb testing.TB, endpoint string) *Client {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := Dial(ctx, endpoint, clientToken)
	if err != nil {
		tb.Fatalf("Dial: %v", err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func call(t *testing.T, c *Client, method string, params, out any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	return c.Call(ctx, method, params, out)
}

// rawConn speaks the wire protocol by hand, to see exactly what the server sends.
type rawConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, endpoint string) *rawConn {
	t.Helper()
	network, addr, err := ParseEndpoint(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (r *rawConn) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.nc, line+"\n"); err != nil {
		r.t.Fatalf("send: %v", err)
	}
}

func (r *rawConn) recv() wireMessage {
	r.t.Helper()
	_ = r.nc.SetReadDeadline(time.Now().Add(waitLimit))
	line, err := r.br.ReadBytes('\n')
	if err != nil {
		r.t.Fatalf("recv: %v (partial %q)", err, line)
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		r.t.Fatalf("recv: invalid JSON %q: %v", line, err)
	}
	return m
}

func (r *rawConn) auth() {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":"` + clientToken + `"}}`)
	if m := r.recv(); m.Error != nil {
		r.t.Fatalf("auth: %+v", m.Error)
	}
}

// expectClosed reads until the server closes the connection.
func (r *rawConn) expectClosed() {
	r.t.Helper()
	_ = r.nc.SetReadDeadline(time.Now().Add(waitLimit))
	_, err := io.Copy(io.Discard, r.br)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		r.t.Fatalf("connection not closed by the server: %v", err)
	}
}

func wantCode(t *testing.T, err error, code model.Code) *model.Error {
	t.Helper()
	var me *model.Error
	if !errors.As(err, &me) {
		t.Fatalf("error = %v (%T), want *model.Error %s", err, err, code)
	}
	if me.Code != code {
		t.Fatalf("error code = %s (%v), want %s", me.Code, me, code)
	}
	return me
}
