package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

func TestCallRoundTripAndConcurrentMatching(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Info().UserAgent; got != "peer/1" {
		t.Fatalf("initialize result not kept: %q", got)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var out struct{ N int }
			if err := c.Call(context.Background(), "echo", map[string]int{"n": i}, &out); err != nil {
				errs <- err
				return
			}
			if out.N != i {
				errs <- errors.New("reply matched to the wrong request")
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestRPCErrorCarriesMethodAndMessage(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Call(context.Background(), "nope", nil, nil)
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Method != "nope" || rpcErr.Code != -32600 || !strings.Contains(rpcErr.Message, "unknown method") {
		t.Fatalf("want RPCError for nope, got %#v", err)
	}
}

func TestChildGetsOnlyTheGivenEnvironment(t *testing.T) {
	t.Setenv("CODEXHOST_SECRET_SHOULD_NOT_LEAK", "x")
	c, err := startPeer(t, "echo", "ONLY_THIS=1")
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	if err := c.Call(context.Background(), "env", nil, &env); err != nil {
		t.Fatal(err)
	}
	if len(env) != 3 || !envHas(env, "ONLY_THIS=1") || envHas(env, "CODEXHOST_SECRET_SHOULD_NOT_LEAK") || envHas(env, "PATH=") {
		t.Fatalf("child environment is not exactly the configured one: %v", env)
	}
}

func TestNotificationsFanOutWithoutBlockingTheReader(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	fast, stopFast := c.Subscribe(func(m string) bool { return m == "tick" })
	defer stopFast()
	// A subscriber that never reads must not stall the reader, other subscribers or calls.
	_, stopStuck := c.Subscribe(nil)
	defer stopStuck()

	const n = 500
	var res struct{ Sent int }
	if err := c.Call(context.Background(), "notify", map[string]int{"n": n}, &res); err != nil || res.Sent != n {
		t.Fatalf("notify call: %v %+v", err, res)
	}
	for i := 0; i < n; i++ {
		select {
		case note := <-fast:
			var p struct{ I int }
			if err := json.Unmarshal(note.Params, &p); err != nil || p.I != i {
				t.Fatalf("notification %d out of order: %s", i, note.Params)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("only %d of %d notifications arrived", i, n)
		}
	}
}

func TestServerRequestWithCollidingIDIsNotTakenForAResponse(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	notes, stop := c.Subscribe(nil)
	defer stop()
	var out string
	if err := c.Call(context.Background(), "collide", nil, &out); err != nil || out != "ok" {
		t.Fatalf("the response was confused with the server request: %v %q", err, out)
	}
	select {
	case n := <-notes:
		if n.Method != "item/commandExecution/requestApproval" || len(n.ID) == 0 {
			t.Fatalf("server request not surfaced as such: %+v", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server request not delivered to subscribers")
	}
	// Unanswered: the peer reports any reply it gets as reply/seen; none may arrive.
	if err := c.Call(context.Background(), "echo", 1, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notes:
		t.Fatalf("a server request without handler was answered: %+v", n)
	case <-time.After(200 * time.Millisecond):
	}
}

func TestServerRequestAnsweredByRegisteredHandler(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	c.Handle("item/commandExecution/requestApproval", func(ctx context.Context, params json.RawMessage) (any, error) {
		return map[string]string{"decision": "decline"}, nil
	})
	notes, stop := c.Subscribe(func(m string) bool { return m == "reply/seen" })
	defer stop()
	if err := c.Call(context.Background(), "collide", nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notes:
		if !strings.Contains(string(n.Params), `"decline"`) {
			t.Fatalf("handler result not sent: %s", n.Params)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("handler reply never reached the server")
	}
}

func TestMalformedLinesAreSkipped(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := c.Call(context.Background(), "garbage", nil, &out); err != nil || out != "after garbage" {
		t.Fatalf("call after malformed lines: %v %q", err, out)
	}
	if got := c.Malformed(); got != 5 {
		t.Fatalf("malformed lines counted %d, want 5", got)
	}
}

func TestPerRequestTimeoutAndCancellation(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "never", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want deadline exceeded, got %v", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	canceled := make(chan error, 1)
	go func() { canceled <- c.Call(ctx2, "never", nil, nil) }()
	waitPending(t, c, 1) // cancel a call that is really in flight, not one not yet sent
	cancel2()
	if err := <-canceled; !errors.Is(err, context.Canceled) {
		t.Fatalf("want canceled, got %v", err)
	}
	// The client still works after abandoned calls.
	if err := c.Call(context.Background(), "echo", 1, nil); err != nil {
		t.Fatal(err)
	}
}

func TestInitializeNeverAnsweredFailsClearly(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	start := time.Now()
	_, err := Start(context.Background(), Config{Bin: exe, Env: []string{"CODEXHOST_TEST_PEER=noinit", "GORACE=atexit_sleep_ms=0"}, InitTimeout: 300 * time.Millisecond})
	if !model.IsCode(err, model.CodeAppServerUnavailable) || !strings.Contains(err.Error(), "did not answer initialize") {
		t.Fatalf("want APP_SERVER_UNAVAILABLE naming initialize, got %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("start did not give up")
	}
}

func TestMissingBinaryFailsClearly(t *testing.T) {
	t.Parallel()
	_, err := Start(context.Background(), Config{Bin: "/nonexistent/codex"})
	if !model.IsCode(err, model.CodeAppServerUnavailable) || !strings.Contains(model.AsError(err).Hint, "npm install") {
		t.Fatalf("want APP_SERVER_UNAVAILABLE with install hint, got %v", err)
	}
}

func TestDeathFailsPendingCallsAndRestartRecovers(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	oldPid := c.Pid()
	pending := make(chan error, 1)
	go func() { pending <- c.Call(context.Background(), "never", nil, nil) }()
	waitPending(t, c, 1)
	if err := c.Call(context.Background(), "die", nil, nil); !errors.Is(err, ErrExited) {
		t.Fatalf("call on dying process: want ErrExited, got %v", err)
	}
	select {
	case err := <-pending:
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit status 3") {
			t.Fatalf("pending call: want ErrExited with the exit status, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("pending call was not failed when the process died")
	}
	<-c.Done()
	if !errors.Is(c.Err(), ErrExited) {
		t.Fatalf("Err after death: %v", c.Err())
	}
	if err := c.Call(context.Background(), "echo", 1, nil); !errors.Is(err, ErrExited) {
		t.Fatalf("call after death: want ErrExited, got %v", err)
	}
	if err := c.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c.Pid() == oldPid || c.Restarts() != 1 {
		t.Fatalf("restart did not start a new process")
	}
	if err := c.Call(context.Background(), "echo", 1, nil); err != nil {
		t.Fatalf("call after restart: %v", err)
	}
}

func TestStderrGoesToTheLogFile(t *testing.T) {
	t.Parallel()
	c, err := startPeer(t, "echo")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Call(context.Background(), "stderr", nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	b, err := os.ReadFile(c.cfg.StderrLog)
	if err != nil || !strings.Contains(string(b), "something on stderr") {
		t.Fatalf("stderr not captured: %v %q", err, b)
	}
	st, _ := os.Stat(c.cfg.StderrLog)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v, want 0600", st.Mode().Perm())
	}
}

func TestLocateOrder(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := dir + "/" + name
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	configured, fromEnv := mk("configured"), mk("fromenv")
	pathDir := t.TempDir()
	if err := os.WriteFile(pathDir+"/codex", []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", pathDir)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CODEXHOST_CODEX_BIN" {
				return v
			}
			return ""
		}
	}
	if got, _ := Locate(Search{Configured: configured, Getenv: env(fromEnv)}); got != configured {
		t.Fatalf("config should win, got %s", got)
	}
	if got, _ := Locate(Search{Getenv: env(fromEnv)}); got != fromEnv {
		t.Fatalf("env should come second, got %s", got)
	}
	if got, _ := Locate(Search{Getenv: env("")}); got != pathDir+"/codex" {
		t.Fatalf("PATH should come last, got %s", got)
	}
	if _, err := Locate(Search{Configured: dir + "/missing", Getenv: env("")}); !model.IsCode(err, model.CodeAppServerUnavailable) {
		t.Fatalf("a configured path that does not exist must fail, got %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Locate(Search{Getenv: env("")}); err == nil || !strings.Contains(model.AsError(err).Hint, "CODEXHOST_CODEX_BIN") {
		t.Fatalf("missing codex must name the fix, got %v", err)
	}
}

func TestLocatePrefersNativeBinaryOverNpmWrapper(t *testing.T) {
	t.Parallel()
	nm := t.TempDir() + "/node_modules"
	wrapper := nm + "/@openai/codex/bin/codex.js"
	native := nm + "/@openai/codex-" + npmPlatform() + "/vendor/triple/bin/codex"
	for _, p := range []string{wrapper, native} {
		if err := os.MkdirAll(p[:strings.LastIndex(p, "/")], 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(nm+"/.bin", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@openai/codex/bin/codex.js", nm+"/.bin/codex"); err != nil {
		t.Fatal(err)
	}
	got, err := Locate(Search{Configured: nm + "/.bin/codex"})
	if err != nil || got != native {
		t.Fatalf("want native %s, got %s (%v)", native, got, err)
	}
}

func BenchmarkCallRoundTrip(b *testing.B) {
	c := pipePeer(b)
	ctx := context.Background()
	params := map[string]string{"threadId": "01a22aa4-73ba-7ac2-abd1-fae395dd0f33"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var out map[string]string
		if err := c.Call(ctx, "echo", params, &out); err != nil {
			b.Fatal(err)
		}
	}
}

// waitPending returns once the client has n calls in flight, so a test acts on a call that was
// sent rather than guessing with a sleep.
func waitPending(t *testing.T, c *Client, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		p := c.current()
		p.pendingMu.Lock()
		got := len(p.pending)
		p.pendingMu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("fewer than %d calls in flight after 5 s", n)
}
