package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

const otherToken = "other-secret"

var otherCaller = Caller{Kind: CallerClient, Client: "other"}

// answerDeadline bounds how long a well-behaved client may wait for an answer under a load.
// It is generous, to stay clear of a slow machine: before the limits the clients waited for
// ever (locked out) or 4–12 s.
const answerDeadline = 3 * time.Second

// dialAs dials endpoint with token, giving up after answerDeadline.
func dialAs(t *testing.T, endpoint, token string) (*Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerDeadline)
	defer cancel()
	c, err := Dial(ctx, endpoint, token)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// answered checks that a client with token is served on endpoint before answerDeadline.
func answered(t *testing.T, endpoint, token string) {
	t.Helper()
	c, err := dialAs(t, endpoint, token)
	if err != nil {
		t.Fatalf("%s with %s: %v", endpoint, token, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerDeadline)
	defer cancel()
	var out string
	if err := c.Call(ctx, "echo", "hi", &out); err != nil || out != "hi" {
		t.Fatalf("%s with %s: echo %q %v", endpoint, token, out, err)
	}
	_ = c.Close()
}

// authAs opens a raw connection and authenticates with token; the server's error, if any.
func authAs(t *testing.T, endpoint, token string) (*rawConn, *model.Error) {
	t.Helper()
	r := dialRaw(t, endpoint)
	r.send(`{"jsonrpc":"2.0","id":0,"method":"auth","params":{"token":"` + token + `"}}`)
	m := r.recv()
	return r, decodeError(m.Error)
}

// One plain client opening 512 authenticated connections (the server's whole MaxConns) gets
// its cap, 64, and is refused past it with RESOURCE_EXHAUSTED naming the cap; every other
// principal, on either transport, is still answered.
func TestOneClientCannotTakeEveryConnection(t *testing.T) {
	s := startServer(t, ServerOptions{AuthTimeout: time.Minute})
	tcp, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	var kept []*rawConn
	for i := range DefaultMaxConns {
		r, me := authAs(t, []string{s.endpoint, tcp}[i%2], clientToken)
		if me == nil {
			kept = append(kept, r)
			continue
		}
		refused++
		if me.Code != model.CodeResourceExhausted || me.Details["limit"] != float64(DefaultMaxConnsPerPrincipal) ||
			!strings.Contains(me.Message, "the cap per client is 64") {
			t.Fatalf("connection %d refused with %+v, want RESOURCE_EXHAUSTED naming the cap", i, me)
		}
		r.expectClosed()
	}
	if want := DefaultMaxConns - DefaultMaxConnsPerPrincipal; refused != want {
		t.Fatalf("%d of the client's %d connections were refused, want %d", refused, DefaultMaxConns, want)
	}
	for _, ep := range []string{s.endpoint, tcp} {
		answered(t, ep, otherToken)
		answered(t, ep, runtimeToken)
	}
	// A connection closed gives the client one back.
	_ = kept[0].nc.Close()
	deadline := time.Now().Add(answerDeadline)
	for {
		c, err := dialAs(t, tcp, clientToken)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing one connection the client is still refused: %v", err)
		}
		time.Sleep(10 * time.Millisecond) // the server notices the close on its own time
	}
}

// Clients filling MaxConns over TCP, and an unauthenticated TCP flood on top, do not lock
// out the operator on the Unix socket; a client refused for the cap is told so
// (RESOURCE_EXHAUSTED), not that the runtime is unreachable.
func TestTheUnixSocketIsNeverLockedOut(t *testing.T) {
	reserved := func(c Caller) PrincipalLimits {
		if c.Kind == CallerRuntime {
			return PrincipalLimits{Reserved: true}
		}
		return PrincipalLimits{}
	}
	s := startServer(t, ServerOptions{MaxConns: 16, MaxConnsPerPrincipal: 8, MaxUnauthConns: 8,
		AuthTimeout: time.Minute, PrincipalLimits: reserved})
	tcp, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{clientToken, otherToken} {
		for range 8 {
			if _, me := authAs(t, tcp, tok); me != nil {
				t.Fatalf("filling MaxConns: %+v", me)
			}
		}
	}
	_, err = dialAs(t, tcp, clientToken)
	wantCode(t, err, model.CodeResourceExhausted)
	for range 200 {
		if nc, err := net.Dial("tcp", strings.TrimPrefix(tcp, "tcp://")); err == nil {
			t.Cleanup(func() { nc.Close() })
		}
	}
	for range 3 {
		answered(t, s.endpoint, runtimeToken)
	}
	// An ordinary client gets no way around MaxConns through the Unix socket's reserve.
	if _, me := authAs(t, s.endpoint, clientToken); me == nil || me.Code != model.CodeResourceExhausted {
		t.Fatalf("an ordinary client in the Unix socket's reserve: %+v", me)
	}
}

// 1,000 idle unauthenticated TCP connections neither delay a real TCP client (the accept
// loop never waits for them) nor close an unauthenticated Unix socket connection.
func TestAnUnauthenticatedTCPFloodDelaysNoOne(t *testing.T) {
	s := startServer(t, ServerOptions{AuthTimeout: time.Minute})
	tcp, err := s.ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	unix := dialRaw(t, s.endpoint) // waits unauthenticated through the flood
	addr := strings.TrimPrefix(tcp, "tcp://")
	for i := range 1000 {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i, err)
		}
		t.Cleanup(func() { nc.Close() })
	}
	answered(t, tcp, clientToken)
	answered(t, tcp, otherToken)
	unix.auth()
}

// 1,000 idle unauthenticated connections on the Unix socket do not delay the operator there
// either: past the burst allowed, the oldest is closed at once rather than waited for.
func TestAnUnauthenticatedUnixFloodDelaysNoOne(t *testing.T) {
	s := startServer(t, ServerOptions{AuthTimeout: time.Minute})
	for i := range 1000 {
		nc, err := net.Dial("unix", s.sock)
		if err != nil {
			t.Fatalf("flood connection %d: %v", i, err)
		}
		t.Cleanup(func() { nc.Close() })
	}
	answered(t, s.endpoint, runtimeToken)
	answered(t, s.endpoint, clientToken)
}

// The memory of one principal's requests is bounded while it sends them: 40 connections
// each sending a 7 MiB request that would stay in flight, then 128 requests padded to
// 3.5 MiB on one connection. Past the bytes in flight allowed the requests are answered
// RESOURCE_EXHAUSTED (their lines read and dropped, not buffered); another client is
// answered throughout; the heap stays under a bound far below what buffering them takes
// (over 500 MiB each time).
func TestRequestBytesInFlightAreBoundedPerClient(t *testing.T) {
	s := startServer(t, ServerOptions{})
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the handler reports each slow request started; nobody else listens
		for {
			select {
			case <-s.h.started:
			case <-stop:
				return
			}
		}
	}()
	peak := sampleHeap(stop)
	var conns []*rawConn
	for range 40 {
		r, me := authAs(t, s.endpoint, clientToken)
		if me != nil {
			t.Fatal(me)
		}
		conns = append(conns, r)
	}
	refusals := make(chan error, 256)
	pad := bytes.Repeat([]byte("p"), 7<<20)
	for i, r := range conns {
		go sendPadded(r.nc, i+1, pad)
		go readRefusals(r, refusals)
	}
	awaitRefusals(t, s, refusals, len(conns)-3) // 16 MiB holds two 7 MiB lines
	one := dialRaw(t, s.endpoint)
	one.auth()
	pad = pad[:7<<19]
	go func() {
		for i := range 128 {
			sendPadded(one.nc, 100+i, pad)
		}
	}()
	go readRefusals(one, refusals)
	awaitRefusals(t, s, refusals, 128-5)
	if p := peak(); p > 160<<20 {
		t.Fatalf("heap in use peaked at %d MiB under one client's large requests", p>>20)
	}
	close(s.h.release)
}

// sendPadded writes a slow request whose params carry pad, without copying pad.
func sendPadded(nc net.Conn, id int, pad []byte) {
	bufs := net.Buffers{[]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"slow","params":{"pad":"`, id)), pad, []byte("\"}}\n")}
	_, _ = bufs.WriteTo(nc)
}

// readRefusals passes on every RESOURCE_EXHAUSTED answer with its request's id, and an
// error for any other message.
func readRefusals(r *rawConn, out chan<- error) {
	_ = r.nc.SetReadDeadline(time.Time{})
	for {
		line, err := r.br.ReadBytes('\n')
		if err != nil {
			return
		}
		var m wireMessage
		if err := json.Unmarshal(line, &m); err != nil {
			out <- err
			continue
		}
		if me := decodeError(m.Error); me == nil || me.Code != model.CodeResourceExhausted || string(m.ID) == "null" {
			out <- fmt.Errorf("want RESOURCE_EXHAUSTED with the request's id, got %s", line)
			continue
		}
		out <- nil
	}
}

// awaitRefusals waits for n refusals, checking that another client is answered meanwhile.
func awaitRefusals(t *testing.T, s *testServer, refusals <-chan error, n int) {
	t.Helper()
	timeout := time.After(time.Minute) // only bounds a hang
	for got := 0; got < n; got++ {
		select {
		case err := <-refusals:
			if err != nil {
				t.Fatal(err)
			}
		case <-timeout:
			t.Fatalf("%d of %d large requests refused; the others are buffered", got, n)
		}
		if got%8 == 0 {
			answered(t, s.endpoint, otherToken)
		}
	}
}

// sampleHeap records the peak of HeapInuse until stop closes.
func sampleHeap(stop <-chan struct{}) (peak func() uint64) {
	var max atomic.Uint64
	go func() {
		var ms goruntime.MemStats
		for {
			goruntime.ReadMemStats(&ms)
			if ms.HeapInuse > max.Load() {
				max.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return max.Load
}

// A runtime too busy to take a connection (its queue of new connections full) is reported
// as a busy runtime serving the home, not as a socket whose state is unknown, so an operator
// locked out is told the truth.
func TestListenUnixOnABusyRuntimeSaysItIsBusy(t *testing.T) {
	sock := filepath.Join(shortDir(t), "rt.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil { // never accepts: a runtime that is wedged
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		nc, err := net.DialTimeout("unix", sock, 100*time.Millisecond)
		if err != nil {
			break
		}
		defer nc.Close()
		if i > 100 {
			t.Fatal("the backlog never filled")
		}
	}
	_, err = NewServer(newTestHandler(), ServerOptions{}).ListenUnix(sock)
	me := wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(me.Message, "a runtime is serving this home but did not take a connection") {
		t.Fatalf("error on a busy runtime: %v", me)
	}
}

// Every byte counted for a request is given back once it is answered, refused or dropped:
// the allowance does not leak away until a client is refused for nothing.
func TestBytesInFlightAreGivenBack(t *testing.T) {
	s := startServer(t, ServerOptions{MaxInflight: 2, MaxBytesInFlight: 1 << 20})
	r := dialRaw(t, s.endpoint)
	r.auth()
	big := strings.Repeat("b", 200<<10)
	for i := range 20 {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"echo","params":"%s"}`, i, big))
		r.send(`{"jsonrpc":"2.0","id":"x","method":"echo","params":1}`)
		r.send(`not json`)
		r.send(`{"jsonrpc":"2.0","method":"note"}`)
		for range 3 {
			r.recv()
		}
	}
	s.mu.Lock()
	p := s.principals[capKey(testCaller)]
	s.mu.Unlock()
	deadline := time.Now().Add(answerDeadline)
	for p.inflight.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still counted in flight after every answer", p.inflight.Load())
		}
		time.Sleep(time.Millisecond) // a handler returns just after its answer is written
	}
}
