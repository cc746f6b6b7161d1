package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

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
