package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// HTTPPath is where the Streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// sessionIdle is how long an HTTP session may go without a request before the SDK closes it
// (and with it the session's runtime connection).
const sessionIdle = time.Hour

// HTTPOptions configure the Streamable HTTP server.
type HTTPOptions struct {
	// Endpoint is the runtime endpoint every HTTP session dials with its caller's token.
	Endpoint string
	Version  string
	Logger   *slog.Logger
}

// HTTPHandler serves MCP over Streamable HTTP on loopback. Each caller presents its own
// client token as a bearer token and acts as that client: its session dials the runtime with
// that token, so what it creates has that client as its origin.
type HTTPHandler struct {
	opts  HTTPOptions
	inner http.Handler

	mu       sync.Mutex
	tokens   map[string]*tokenConns // by sha256 of the token
	sessions map[string]*sessionConn
	closed   bool
}

// tokenConns are the live runtime connections opened with one token.
type tokenConns struct {
	caller string
	spare  *api.Client // dialled to verify the token; the next session takes it
	live   int         // sessions using the token
}

type sessionConn struct {
	key    string
	client *api.Client
}

// NewHTTPHandler builds the handler of HTTPPath.
func NewHTTPHandler(opts HTTPOptions) *HTTPHandler {
	h := &HTTPHandler{opts: opts, tokens: map[string]*tokenConns{}, sessions: map[string]*sessionConn{}}
	server := NewServer(Options{Version: opts.Version, Logger: opts.Logger, Runtime: h.runtimeFor})
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server },
		&sdk.StreamableHTTPOptions{Logger: opts.Logger, MaxRequestBodyBytes: MaxRequestBytes, SessionTimeout: sessionIdle})
	h.inner = auth.RequireBearerToken(h.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	return h
}

// ServeHTTP refuses a non-localhost Host header (DNS rebinding) and an oversized body before
// anything else, then authenticates the bearer token.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !LocalHost(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: Host %q is not localhost; codexhost mcp serves loopback clients only", r.Host), http.StatusForbidden)
		return
	}
	if r.ContentLength > MaxRequestBytes {
		http.Error(w, fmt.Sprintf("request body of %d bytes refused: the limit is %d bytes", r.ContentLength, MaxRequestBytes), http.StatusRequestEntityTooLarge)
		return
	}
	if r.URL.Path != HTTPPath {
		http.Error(w, "not found: the MCP endpoint is "+HTTPPath, http.StatusNotFound)
		return
	}
	h.inner.ServeHTTP(w, r)
}

func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// verify accepts a token that has a live runtime connection, or that the runtime accepts now.
func (h *HTTPHandler) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	key := tokenKey(token)
	h.mu.Lock()
	tc := h.tokens[key]
	known := tc != nil && (tc.live > 0 || (tc.spare != nil && tc.spare.Err() == nil))
	h.mu.Unlock()
	if !known {
		c, err := h.dial(ctx, token)
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		tc = h.tokens[key]
		if tc == nil {
			tc = &tokenConns{caller: c.Caller().Client}
			h.tokens[key] = tc
		}
		old := tc.spare
		tc.spare = c
		h.mu.Unlock()
		if old != nil {
			_ = old.Close()
		}
	}
	return &auth.TokenInfo{UserID: tc.caller + "/" + key[:16], Extra: map[string]any{"token": token, "key": key}}, nil
}

func (h *HTTPHandler) dial(ctx context.Context, token string) (*api.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, api.DefaultDialTimeout)
	defer cancel()
	c, err := api.Dial(ctx, h.opts.Endpoint, token)
	if model.IsCode(err, model.CodePermissionDenied) || model.IsCode(err, model.CodeInvalidArgument) {
		return nil, fmt.Errorf("%w: the runtime refused the token; create one with `codexhost client add NAME`", auth.ErrInvalidToken)
	}
	if err != nil {
		return nil, err
	}
	if c.Caller().Kind != api.CallerClient {
		_ = c.Close()
		return nil, fmt.Errorf("%w: over HTTP only client tokens are accepted", auth.ErrInvalidToken)
	}
	return c, nil
}

// runtimeFor is the runtime connection of a tool call's session, dialled with the session's
// token on its first call and closed when the session ends.
func (h *HTTPHandler) runtimeFor(ctx context.Context, req *sdk.CallToolRequest) (Runtime, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil, model.Errorf(model.CodePermissionDenied, "send your client token as Authorization: Bearer TOKEN", "no bearer token on the request")
	}
	key, _ := req.Extra.TokenInfo.Extra["key"].(string)
	token, _ := req.Extra.TokenInfo.Extra["token"].(string)
	sid := req.Session.ID()
	h.mu.Lock()
	if sc := h.sessions[sid]; sc != nil && sc.key == key && sc.client.Err() == nil {
		h.mu.Unlock()
		return sc.client, nil
	}
	var c *api.Client
	if tc := h.tokens[key]; tc != nil && tc.spare != nil && tc.spare.Err() == nil {
		c, tc.spare = tc.spare, nil
	}
	h.mu.Unlock()
	if c == nil {
		var err error
		if c, err = h.dial(ctx, token); err != nil {
			return nil, model.Errorf(model.CodePermissionDenied, "send a valid client token", "%v", err)
		}
	}
	return h.bind(req.Session, key, c), nil
}

// bind makes c the session's connection, unless another call bound one first.
func (h *HTTPHandler) bind(ss *sdk.ServerSession, key string, c *api.Client) *api.Client {
	sid := ss.ID()
	h.mu.Lock()
	if sc := h.sessions[sid]; sc != nil && sc.key == key && sc.client.Err() == nil {
		h.mu.Unlock()
		_ = c.Close()
		return sc.client
	}
	old := h.sessions[sid]
	h.sessions[sid] = &sessionConn{key: key, client: c}
	if tc := h.tokens[key]; tc != nil {
		tc.live++
	}
	closed := h.closed
	h.mu.Unlock()
	if old != nil {
		h.release(old)
	}
	if closed {
		_ = c.Close()
	}
	go func() {
		_ = ss.Wait()
		h.mu.Lock()
		sc := h.sessions[sid]
		if sc != nil && sc.client == c {
			delete(h.sessions, sid)
		}
		h.mu.Unlock()
		if sc != nil && sc.client == c {
			h.release(sc)
		}
	}()
	return c
}

func (h *HTTPHandler) release(sc *sessionConn) {
	_ = sc.client.Close()
	h.mu.Lock()
	if tc := h.tokens[sc.key]; tc != nil {
		tc.live--
		if tc.live <= 0 && tc.spare == nil {
			delete(h.tokens, sc.key)
		}
	}
	h.mu.Unlock()
}

// Close closes every runtime connection the handler holds.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	h.closed = true
	var cs []*api.Client
	for _, sc := range h.sessions {
		cs = append(cs, sc.client)
	}
	for _, tc := range h.tokens {
		if tc.spare != nil {
			cs = append(cs, tc.spare)
		}
	}
	h.sessions, h.tokens = map[string]*sessionConn{}, map[string]*tokenConns{}
	h.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
}

// LocalHost reports whether a Host header names this machine's loopback.
func LocalHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ListenLoopback listens on addr, which must be a loopback address: the HTTP server carries
// client tokens and is never exposed beyond this machine.
func ListenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, model.Errorf(model.CodeInvalidArgument, "give --listen as 127.0.0.1:PORT", "invalid listen address %q: %v", addr, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return nil, model.Errorf(model.CodeInvalidArgument, "listen on loopback only, e.g. --listen 127.0.0.1:8765",
			"listen address %s is not a loopback address", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "pick a free port", "listen on %s: %v", addr, err)
	}
	return ln, nil
}
