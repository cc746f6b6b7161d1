package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

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
