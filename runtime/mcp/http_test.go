package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/runtime/api"
)

const (
	botToken   = "bot-secret"
	otherToken = "other-secret"
	// answerDeadline bounds a well-behaved client's wait under a load; generous on purpose.
	answerDeadline = 5 * time.Second
)

// runtimeStub is a runtime API server whose clients are "bot" and "other" and which answers
// task.status with no tasks.
type runtimeStub struct{}

func (runtimeStub) Authenticate(token string) (api.Caller, bool) {
	switch token {
	case botToken:
		return api.Caller{Kind: api.CallerClient, Client: "bot"}, true
	case otherToken:
		return api.Caller{Kind: api.CallerClient, Client: "other"}, true
	}
	return api.Caller{}, false
}

func (runtimeStub) Handle(_ context.Context, _ api.Caller, method string, _ json.RawMessage) (any, error) {
	if method == api.MethodTaskStatus {
		return api.TaskStatusResult{Tasks: []api.TaskInfo{}}, nil
	}
	return nil, api.ErrUnknownMethod
}

func (runtimeStub) Subscribe(context.Context, func(api.Event))                   {}
func (runtimeStub) SubscribeCaller(context.Context, api.Caller, func(api.Event)) {}
func (runtimeStub) Authorize(api.Caller, string) error                           { return nil }

// countingProxy forwards TCP connections to the runtime's socket and counts those open, which
// are the runtime connections the MCP server holds.
type countingProxy struct {
	ln   net.Listener
	open atomic.Int64
}

func startProxy(t *testing.T, target string) *countingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("unix", target)
			if err != nil {
				in.Close()
				continue
			}
			p.open.Add(1)
			var once sync.Once
			done := func() { once.Do(func() { in.Close(); out.Close(); p.open.Add(-1) }) }
			go func() { _, _ = io.Copy(out, in); done() }()
			go func() { _, _ = io.Copy(in, out); done() }()
		}
	}()
	return p
}

// fakeClock is the idle sweep's clock.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) Now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

type mcpFixture struct {
	h     *HTTPHandler
	url   string
	proxy *countingProxy
	clock *fakeClock
}

// startMCP runs a runtime API server, the MCP HTTP handler in front of it (through the
// counting proxy) and an HTTP server on loopback.
func startMCP(t *testing.T) *mcpFixture {
	dir, err := os.MkdirTemp("", "chmcp") // t.TempDir() can pass the socket path limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	srv := api.NewServer(runtimeStub{}, api.ServerOptions{})
	sock := filepath.Join(dir, "rt.sock")
	if _, err := srv.ListenUnix(sock); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(context.Background()) }()
	t.Cleanup(func() { _ = srv.Close() })
	proxy := startProxy(t, sock)
	clock := &fakeClock{}
	clock.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	h := NewHTTPHandler(HTTPOptions{Endpoint: api.TCPEndpoint(proxy.ln.Addr().String()), Version: "test", Now: clock.Now})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { hs.Close(); h.Close() })
	return &mcpFixture{h: h, url: hs.URL + HTTPPath, proxy: proxy, clock: clock}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func (f *mcpFixture) session(t *testing.T, token string) (*sdk.ClientSession, error) {
	ctx, cancel := context.WithTimeout(context.Background(), answerDeadline)
	defer cancel()
	tr := &sdk.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// status calls codex.status on cs; nil when the runtime answered.
func status(cs *sdk.ClientSession) error {
	ctx, cancel := context.WithTimeout(context.Background(), answerDeadline)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "codex.status", Arguments: map[string]any{}})
	if err == nil && res.IsError {
		err = errors.New(res.Content[0].(*sdk.TextContent).Text)
	}
	return err
}

func (f *mcpFixture) waitOpen(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(answerDeadline)
	for f.proxy.open.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d runtime connections open, want %d", f.proxy.open.Load(), want)
		}
		time.Sleep(10 * time.Millisecond) // closes reach the proxy on their own time
	}
}

// advance moves the clock once every request's end has been noted: a handler finishes
// after its answer reached the client.
func (f *mcpFixture) advance(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(answerDeadline)
	for {
		f.h.mu.Lock()
		busy := 0
		for _, st := range f.h.sessions {
			busy += st.active
		}
		f.h.mu.Unlock()
		if busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests still running", busy)
		}
		time.Sleep(time.Millisecond)
	}
	f.clock.Advance(d)
}

// One bot opening session after session (1,000 kept a runtime connection each for an hour)
// gets MaxSessionsPerToken of them, refused past it; its sessions share one runtime
// connection; another client is answered throughout.
func TestMCPSessionsOfOneTokenAreCappedAndShareOneConnection(t *testing.T) {
	t.Parallel()
	f := startMCP(t)
	other, err := f.session(t, otherToken)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i := range 100 {
		cs, err := f.session(t, botToken)
		if err != nil {
			if !strings.Contains(err.Error(), "Too Many Requests") {
				t.Fatalf("session %d refused with %v, want 429 naming the cap", i, err)
			}
			refused++
		} else if err := status(cs); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
		if i%10 == 0 {
			if err := status(other); err != nil {
				t.Fatalf("the other client under the load: %v", err)
			}
		}
	}
	if want := 100 - DefaultMaxSessionsPerToken; refused != want {
		t.Fatalf("%d of the bot's 100 sessions refused, want %d", refused, want)
	}
	f.waitOpen(t, 2) // one per token
}

// A session without a request for SessionIdle is closed, one with a recent request is not;
// once a token has no session left its runtime connection is closed too.
func TestIdleMCPSessionsAreClosed(t *testing.T) {
	t.Parallel()
	f := startMCP(t)
	var sessions []*sdk.ClientSession
	for range 3 {
		cs, err := f.session(t, botToken)
		if err != nil {
			t.Fatal(err)
		}
		if err := status(cs); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	f.waitOpen(t, 1)
	f.advance(t, DefaultSessionIdle/2)
	if err := status(sessions[0]); err != nil {
		t.Fatal(err)
	}
	f.advance(t, DefaultSessionIdle/2+time.Second)
	if n := f.h.closeIdle(); n != 2 {
		t.Fatalf("closed %d idle sessions, want 2", n)
	}
	if err := status(sessions[1]); err == nil {
		t.Fatal("a session closed for idleness still answers")
	}
	if err := status(sessions[0]); err != nil {
		t.Fatalf("the session in use: %v", err)
	}
	f.waitOpen(t, 1)
	f.advance(t, DefaultSessionIdle)
	if n := f.h.closeIdle(); n != 1 {
		t.Fatalf("closed %d idle sessions, want 1", n)
	}
	f.waitOpen(t, 0)
	// The token still works: a new session dials the runtime again.
	cs, err := f.session(t, botToken)
	if err != nil {
		t.Fatal(err)
	}
	if err := status(cs); err != nil {
		t.Fatal(err)
	}
}

// A request whose Origin is not a loopback origin (a web page's script) is refused with 403
// before anything else; a loopback origin, or none, is served.
func TestMCPHTTPRefusesAForeignOrigin(t *testing.T) {
	t.Parallel()
	f := startMCP(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	port := f.url[strings.LastIndex(f.url, ":")+1 : strings.LastIndex(f.url, "/")]
	for origin, want := range map[string]int{
		"https://evil.example":          http.StatusForbidden,
		"http://127.0.0.1.evil.example": http.StatusForbidden,
		"null":                          http.StatusForbidden,
		"http://localhost:" + port:      http.StatusOK,
		"http://127.0.0.1:" + port:      http.StatusOK,
		"http://[::1]:" + port:          http.StatusOK,
		"":                              http.StatusOK,
	} {
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+botToken)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Origin %q: status %d, want %d", origin, resp.StatusCode, want)
		}
	}
}
