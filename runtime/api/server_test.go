package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
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
	subs    map[int]func(Event)
	next    int
}

func newTestHandler() *testHandler {
	return &testHandler{release: make(chan struct{}), started: make(chan struct{}, 16),
		canceled: make(chan struct{}, 16), subs: make(map[int]func(Event))}
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

func (h *testHandler) Subscribe(ctx context.Context, fn func(Event)) {
	h.mu.Lock()
	id := h.next
	h.next++
	h.subs[id] = fn
	h.mu.Unlock()
	context.AfterFunc(ctx, func() {
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	})
}

// publish calls every subscriber synchronously, as a real fan-out would: it returns only if
// no subscriber blocks.
func (h *testHandler) publish(ev Event) {
	h.mu.Lock()
	fns := make([]func(Event), 0, len(h.subs))
	for _, fn := range h.subs {
		fns = append(fns, fn)
	}
	h.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}

func (h *testHandler) subCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
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

func TestAuthRequiredFirst(t *testing.T) {
	s := startServer(t, ServerOptions{})
	r := dialRaw(t, s.endpoint)
	for _, method := range []string{MethodThreadList, MethodEventsSubscribe} {
		r.send(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{}}`)
		m := r.recv()
		if string(m.ID) != "1" || m.Error == nil || m.Error.Code != rpcServerError {
			t.Fatalf("%s before auth: got %+v", method, m)
		}
		me := wantCode(t, decodeError(m.Error), model.CodePermissionDenied)
		if !strings.HasPrefix(me.Hint, "authenticate first") {
			t.Errorf("hint = %q, want it to start with %q", me.Hint, "authenticate first")
		}
	}
	if s.h.saw(MethodThreadList) {
		t.Error("the handler was called before authentication")
	}
	if s.h.subCount() != 0 {
		t.Error("events.subscribe before authentication subscribed")
	}

	// The connection stays usable: authenticating now works.
	r.send(`{"jsonrpc":"2.0","id":2,"method":"auth","params":{"token":"` + clientToken + `"}}`)
	m := r.recv()
	var res AuthResult
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.Caller != testCaller || res.Version != testVersion {
		t.Fatalf("auth: %+v (%s)", m, m.Result)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"echo","params":{"x":1}}`)
	if m := r.recv(); string(m.ID) != "3" || string(m.Result) != `{"x":1}` {
		t.Fatalf("echo after auth: id %s result %s error %+v", m.ID, m.Result, m.Error)
	}
	r.send(`{"jsonrpc":"2.0","id":4,"method":"auth","params":{"token":"` + clientToken + `"}}`)
	wantCode(t, decodeError(r.recv().Error), model.CodeFailedPrecondition)
}

func TestWrongTokenRejectedAndClosed(t *testing.T) {
	const delay = 60 * time.Millisecond
	s := startServer(t, ServerOptions{AuthFailureDelay: delay})
	for _, params := range []string{`{"token":"guess"}`, `{"token":""}`, `null`} {
		r := dialRaw(t, s.endpoint)
		start := time.Now()
		r.send(`{"jsonrpc":"2.0","id":1,"method":"auth","params":` + params + `}`)
		m := r.recv()
		if elapsed := time.Since(start); elapsed < delay {
			t.Errorf("params %s: rejected after %v, want at least the %v throttle", params, elapsed, delay)
		}
		wantCode(t, decodeError(m.Error), model.CodePermissionDenied)
		r.expectClosed()
	}

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	c, err := Dial(ctx, s.endpoint, "guess")
	if c != nil {
		t.Fatal("Dial with a wrong token returned a client")
	}
	me := wantCode(t, err, model.CodePermissionDenied)
	if !strings.Contains(me.Message, "rejected the token") {
		t.Errorf("message = %q", me.Message)
	}
}

func TestRightTokenReturnsCaller(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	if c.Caller() != testCaller || c.Version() != testVersion || c.Endpoint() != s.endpoint {
		t.Fatalf("Caller %+v Version %q Endpoint %q", c.Caller(), c.Version(), c.Endpoint())
	}
	var seen Caller
	if err := call(t, c, "whoami", nil, &seen); err != nil || seen != testCaller {
		t.Fatalf("handler saw caller %+v, err %v", seen, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	rc, err := Dial(ctx, s.endpoint, runtimeToken)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if rc.Caller() != (Caller{Kind: CallerRuntime}) {
		t.Errorf("runtime token caller = %+v", rc.Caller())
	}
}

func TestAuthTimeoutClosesIdleConnection(t *testing.T) {
	s := startServer(t, ServerOptions{AuthTimeout: 50 * time.Millisecond})
	r := dialRaw(t, s.endpoint)
	r.expectClosed()
}

func TestUnixSocketMode0600(t *testing.T) {
	// The mode must not depend on the umask: run under the most permissive one.
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	s := startServer(t, ServerOptions{})
	fi, err := os.Lstat(s.sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode = %v, want a socket with 0600", fi.Mode())
	}
	if s.endpoint != "unix://"+s.sock {
		t.Errorf("endpoint = %q", s.endpoint)
	}
	// The bind detour leaves nothing behind.
	entries, _ := os.ReadDir(filepath.Dir(s.sock))
	if len(entries) != 1 {
		t.Errorf("home holds %d entries, want only the socket: %v", len(entries), entries)
	}
	dial(t, s.endpoint).Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file left after Close: %v", err)
	}
}

func TestStaleSocketReplaced(t *testing.T) {
	sock := filepath.Join(shortDir(t), "rt.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("stale socket not in place: %v", err)
	}

	srv := NewServer(newTestHandler(), ServerOptions{})
	ep, err := srv.ListenUnix(sock)
	if err != nil {
		t.Fatalf("ListenUnix over a stale socket: %v", err)
	}
	go srv.Serve(context.Background())
	defer srv.Close()
	var out string
	if err := call(t, dial(t, ep), "echo", "hi", &out); err != nil || out != "hi" {
		t.Fatalf("echo = %q, %v", out, err)
	}
}

func TestLiveSocketRefused(t *testing.T) {
	s := startServer(t, ServerOptions{})
	other := NewServer(newTestHandler(), ServerOptions{})
	defer other.Close()
	_, err := other.ListenUnix(s.sock)
	me := wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(me.Message, "another runtime is serving this home") || me.Details["socket"] != s.sock {
		t.Errorf("error = %v details %v", me, me.Details)
	}
	// The live runtime is untouched.
	var out string
	if err := call(t, dial(t, s.endpoint), "echo", "still here", &out); err != nil || out != "still here" {
		t.Fatalf("live runtime after the refused listen: %q, %v", out, err)
	}
}

func TestNonSocketFileNotReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), "rt.sock")
	if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(newTestHandler(), ServerOptions{})
	defer srv.Close()
	_, err := srv.ListenUnix(path)
	wantCode(t, err, model.CodeFailedPrecondition)
	if b, _ := os.ReadFile(path); string(b) != "precious" {
		t.Errorf("file content now %q", b)
	}
}

func TestCloseLeavesSuccessorSocket(t *testing.T) {
	first := NewServer(newTestHandler(), ServerOptions{})
	sock := filepath.Join(shortDir(t), "rt.sock")
	if _, err := first.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	// Someone removed our file and another runtime took the path.
	os.Remove(sock)
	second := NewServer(newTestHandler(), ServerOptions{})
	defer second.Close()
	if _, err := second.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	first.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("closing the first server removed the second's socket: %v", err)
	}
}

func TestListenUnixBadPaths(t *testing.T) {
	srv := NewServer(newTestHandler(), ServerOptions{})
	defer srv.Close()
	for _, p := range []string{"rel/rt.sock", "/" + strings.Repeat("d", maxUnixPath) + "/rt.sock"} {
		_, err := srv.ListenUnix(p)
		wantCode(t, err, model.CodeInvalidArgument)
	}
}

func TestTCPLoopback(t *testing.T) {
	s := startServer(t, ServerOptions{})
	ep, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ep, "tcp://127.0.0.1:") || strings.HasSuffix(ep, ":0") {
		t.Fatalf("endpoint = %q, want the real port", ep)
	}
	var out string
	if err := call(t, dial(t, ep), "echo", "over tcp", &out); err != nil || out != "over tcp" {
		t.Fatalf("echo over tcp = %q, %v", out, err)
	}
	if got := s.Endpoints(); len(got) != 2 || got[0] != s.endpoint || got[1] != ep {
		t.Errorf("Endpoints = %v", got)
	}

	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0"} {
		_, err := s.ListenTCP(addr)
		me := wantCode(t, err, model.CodeInvalidArgument)
		if !strings.Contains(me.Message, "clear text") {
			t.Errorf("ListenTCP(%q) message %q does not say why", addr, me.Message)
		}
	}
}

func TestConcurrentCallsMatchedByID(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out struct{ N int }
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			if err := c.Call(ctx, "jitter", map[string]int{"N": i}, &out); err != nil {
				errs <- err
			} else if out.N != i {
				errs <- fmt.Errorf("call %d got the answer for %d", i, out.N)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestIDsEchoedAsGiven(t *testing.T) {
	s := startServer(t, ServerOptions{})
	r := dialRaw(t, s.endpoint)
	r.auth()
	for _, id := range []string{`"abc"`, `"x\"y"`, `7`, `-3.5`, `1e3`, `null`} {
		r.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo","params":[1]}`)
		if m := r.recv(); string(m.ID) != id || string(m.Result) != "[1]" {
			t.Errorf("id %s: got id %s result %s error %+v", id, m.ID, m.Result, m.Error)
		}
	}
	// A notification is not answered: the next line read answers the request after it.
	r.send(`{"jsonrpc":"2.0","method":"echo","params":["ignored"]}`)
	r.send(`{"jsonrpc":"2.0","id":9,"method":"echo","params":["answered"]}`)
	if m := r.recv(); string(m.ID) != "9" {
		t.Errorf("after a notification got id %s result %s", m.ID, m.Result)
	}
	// Ids that JSON-RPC does not allow are refused without closing the connection.
	r.send(`{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}`)
	if m := r.recv(); m.Error == nil || m.Error.Code != rpcInvalidRequest || string(m.ID) != "null" {
		t.Errorf("object id: got %+v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":10,"method":"echo"}`)
	if m := r.recv(); string(m.ID) != "10" || string(m.Result) != "null" {
		t.Errorf("after a bad id: got id %s result %s", m.ID, m.Result)
	}
}

func TestModelErrorRoundTrip(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	me := wantCode(t, call(t, c, "fail", nil, nil), model.CodeThreadBusy)
	if me.Message != "thread t1 is busy" || me.Hint != "wait for the turn to finish" ||
		me.Details["thread"] != "t1" || me.Details["turn"] != float64(3) {
		t.Errorf("round trip lost something: %#v", me)
	}

	me = wantCode(t, call(t, c, "boom", nil, nil), model.CodeInternal)
	if !strings.Contains(me.Message, "disk on fire") {
		t.Errorf("plain error message = %q", me.Message)
	}
	me = wantCode(t, call(t, c, "panic", nil, nil), model.CodeInternal)
	if !strings.Contains(me.Message, "kaboom") {
		t.Errorf("panic message = %q", me.Message)
	}
	var out string
	if err := call(t, c, "echo", "alive", &out); err != nil || out != "alive" {
		t.Errorf("connection after a handler panic: %q, %v", out, err)
	}
}

func TestUnknownMethod(t *testing.T) {
	s := startServer(t, ServerOptions{})
	me := wantCode(t, call(t, dial(t, s.endpoint), "no.such", nil, nil), model.CodeInvalidArgument)
	if !strings.Contains(me.Message, `"no.such"`) || me.Details["method"] != "no.such" {
		t.Errorf("error = %v details %v", me, me.Details)
	}
	r := dialRaw(t, s.endpoint)
	r.auth()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"no.such"}`)
	if m := r.recv(); m.Error == nil || m.Error.Code != rpcMethodNotFound {
		t.Errorf("wire error = %+v, want code %d", m.Error, rpcMethodNotFound)
	}
}

func TestMalformedInput(t *testing.T) {
	s := startServer(t, ServerOptions{})

	// After auth a bad line is answered and the connection goes on.
	r := dialRaw(t, s.endpoint)
	r.auth()
	r.send(`this is not json`)
	m := r.recv()
	if m.Error == nil || m.Error.Code != rpcParseError || string(m.ID) != "null" {
		t.Fatalf("parse error: got %+v", m)
	}
	wantCode(t, decodeError(m.Error), model.CodeInvalidArgument)
	r.send(`[{"jsonrpc":"2.0","id":1,"method":"echo"}]`)
	if m := r.recv(); m.Error == nil || m.Error.Code != rpcInvalidRequest {
		t.Fatalf("batch: got %+v", m)
	}
	r.send(`{"id":2,"method":"echo"}`)
	if m := r.recv(); m.Error == nil || m.Error.Code != rpcInvalidRequest || string(m.ID) != "2" {
		t.Fatalf("missing jsonrpc: got %+v", m)
	}
	r.send(``)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"echo","params":"ok"}`)
	if m := r.recv(); string(m.ID) != "3" || string(m.Result) != `"ok"` {
		t.Fatalf("after bad lines: got %+v", m)
	}

	// Before auth garbage (here an HTTP request) ends the connection.
	h := dialRaw(t, s.endpoint)
	h.send("GET / HTTP/1.1\r")
	if m := h.recv(); m.Error == nil || m.Error.Code != rpcParseError {
		t.Fatalf("HTTP line: got %+v", m)
	}
	h.expectClosed()
}

func TestOversizeLineClosesConnection(t *testing.T) {
	s := startServer(t, ServerOptions{MaxLineBytes: 1024})
	r := dialRaw(t, s.endpoint)
	r.auth()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":"` + strings.Repeat("x", 200_000) + `"}`)
	m := r.recv()
	if m.Error == nil || m.Error.Code != rpcInvalidRequest {
		t.Fatalf("oversize line: got %+v", m)
	}
	me := wantCode(t, decodeError(m.Error), model.CodeInvalidArgument)
	if !strings.Contains(me.Message, "1024") {
		t.Errorf("message %q does not name the limit", me.Message)
	}
	r.expectClosed()

	// A line of exactly the limit is fine.
	r = dialRaw(t, s.endpoint)
	r.auth()
	prefix, suffix := `{"jsonrpc":"2.0","id":2,"method":"echo","params":"`, `"}`
	r.send(prefix + strings.Repeat("y", 1024-len(prefix)-len(suffix)) + suffix)
	if m := r.recv(); m.Error != nil {
		t.Fatalf("line at the limit: %+v", m.Error)
	}
}

func TestClientRefusesOversizeRequest(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	wantCode(t, call(t, c, "echo", strings.Repeat("x", DefaultMaxLineBytes), nil), model.CodeInvalidArgument)
	var out string
	if err := call(t, c, "echo", "small", &out); err != nil || out != "small" {
		t.Fatalf("after a refused request: %q, %v", out, err)
	}
}

func TestCallContextCancel(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow call = %v, want DeadlineExceeded", err)
	}
	<-s.h.started
	var out string
	if err := call(t, c, "echo", "meanwhile", &out); err != nil || out != "meanwhile" {
		t.Fatalf("call while the abandoned one runs: %q, %v", out, err)
	}
	// The abandoned answer arrives now and must not reach anyone else.
	close(s.h.release)
	for i := range 20 {
		want := fmt.Sprint("after ", i)
		if err := call(t, c, "echo", want, &out); err != nil || out != want {
			t.Fatalf("call after the abandoned answer: %q, %v", out, err)
		}
	}
}

func TestServerCloseFailsPendingCalls(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	errc := make(chan error, 1)
	go func() { errc <- call(t, c, "slow", nil, nil) }()
	select {
	case <-s.h.started:
	case <-time.After(waitLimit):
		t.Fatal("slow handler never started")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waited for the handler, which saw its context canceled.
	select {
	case <-s.h.canceled:
	default:
		t.Fatal("Close returned before the in-flight handler saw the cancellation")
	}
	me := wantCode(t, <-errc, model.CodeRuntimeUnreachable)
	if !strings.Contains(me.Message, s.endpoint) {
		t.Errorf("message %q does not name the endpoint", me.Message)
	}
	wantCode(t, call(t, c, "echo", nil, nil), model.CodeRuntimeUnreachable)
	if _, err := c.Events(context.Background()); !model.IsCode(err, model.CodeRuntimeUnreachable) {
		t.Errorf("Events after loss = %v", err)
	}
}

func TestServeStopsWithContext(t *testing.T) {
	srv := NewServer(newTestHandler(), ServerOptions{})
	sock := filepath.Join(shortDir(t), "rt.sock")
	ep, err := srv.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	dial(t, ep)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Serve did not return after its context ended")
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after shutdown: %v", err)
	}
	if _, err := srv.ListenTCP("127.0.0.1:0"); !errors.Is(err, ErrServerClosed) {
		t.Errorf("ListenTCP after shutdown = %v", err)
	}
}

func TestDialDeadEndpoint(t *testing.T) {
	dir := shortDir(t)
	stale := filepath.Join(dir, "stale.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := tl.Addr().String()
	tl.Close()

	for _, ep := range []string{
		UnixEndpoint(filepath.Join(dir, "missing.sock")),
		UnixEndpoint(stale),
		TCPEndpoint(closedPort),
	} {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		c, err := Dial(ctx, ep, clientToken)
		cancel()
		if c != nil {
			t.Fatalf("Dial(%s) returned a client", ep)
		}
		me := wantCode(t, err, model.CodeRuntimeUnreachable)
		if !strings.Contains(me.Message, ep) || strings.Contains(me.Message, "dial ") {
			t.Errorf("Dial(%s) message %q: want the endpoint and the bare OS error", ep, me.Message)
		}
		if me.Hint != UnreachableHint {
			t.Errorf("Dial(%s) hint = %q", ep, me.Hint)
		}
	}

	_, err = Dial(context.Background(), "localhost:80", clientToken)
	wantCode(t, err, model.CodeInvalidArgument)
}

// syncBuffer collects log output written from server goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestEventsFanOutAndSlowSubscriberDropped(t *testing.T) {
	var logs syncBuffer
	s := startServer(t, ServerOptions{EventQueue: 4, Log: &logs})
	a, b := dial(t, s.endpoint), dial(t, s.endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	evA, err := a.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ctxB, cancelB := context.WithCancel(ctx)
	evB, err := b.Events(ctxB)
	if err != nil {
		t.Fatal(err)
	}

	// A subscriber that never reads once subscribed.
	stuck := dialRaw(t, s.endpoint)
	stuck.auth()
	stuck.send(`{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}`)
	if m := stuck.recv(); m.Error != nil {
		t.Fatal(m.Error)
	}
	if n := s.h.subCount(); n != 3 {
		t.Fatalf("%d subscribers, want 3", n)
	}

	// Large events fill the stuck connection's socket buffers quickly; the others read each
	// one before the next is published, so only the stuck one can fall behind.
	pad := strings.Repeat("x", 8<<10)
	for i := range 400 {
		thread := fmt.Sprintf("t%d-%s", i, pad)
		published := make(chan struct{})
		go func() {
			s.h.publish(Event{Type: EventThreadStatus, Thread: thread, Status: "active"})
			close(published)
		}()
		for name, ch := range map[string]<-chan Event{"a": evA, "b": evB} {
			select {
			case ev, ok := <-ch:
				if !ok || ev.Thread != thread || ev.Type != EventThreadStatus || ev.Status != "active" {
					t.Fatalf("subscriber %s, event %d: got %+v (open %v)", name, i, ev.Type, ok)
				}
			case <-time.After(waitLimit):
				t.Fatalf("subscriber %s never got event %d: the fan-out is blocked", name, i)
			}
		}
		select {
		case <-published:
		case <-time.After(waitLimit):
			t.Fatalf("publishing event %d blocked", i)
		}
	}
	stuck.expectClosed()
	deadline := time.Now().Add(waitLimit)
	for s.h.subCount() != 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := s.h.subCount(); n != 2 {
		t.Errorf("%d subscribers after the drop, want 2", n)
	}
	if !strings.Contains(logs.String(), "does not keep up with events") {
		t.Errorf("no log line for the dropped connection; logs:\n%s", logs.String())
	}

	// The channel closes when the Events context ends and when the client closes.
	cancelB()
	for range evB {
	}
	a.Close()
	for range evA {
	}
}

func TestEventsSubscribeIsIdempotent(t *testing.T) {
	s := startServer(t, ServerOptions{})
	c := dial(t, s.endpoint)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	ch1, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ch2, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.h.subCount(); n != 1 {
		t.Fatalf("one connection subscribed %d times", n)
	}
	s.h.publish(Event{Type: EventThreadStatus, Thread: "t1"})
	for _, ch := range []<-chan Event{ch1, ch2} {
		select {
		case ev := <-ch:
			if ev.Thread != "t1" {
				t.Errorf("got %+v", ev)
			}
		case <-time.After(waitLimit):
			t.Fatal("event not delivered to every local subscriber")
		}
	}
}
