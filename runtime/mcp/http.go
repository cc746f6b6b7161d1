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

// HTTPOptions configure the Streamable HTTP server.
type HTTPOptions struct {
	// Endpoint is the runtime endpoint the sessions of each token dial with that token.
	Endpoint string
	Version  string
	Logger   *slog.Logger
	// MaxSessionsPerToken caps the live sessions of one client token
	// (DefaultMaxSessionsPerToken); a new session past it is refused with 429.
	MaxSessionsPerToken int
	// SessionIdle closes a session that had no request for this long (DefaultSessionIdle).
	SessionIdle time.Duration
	// Now is the clock SessionIdle is measured on; nil is time.Now.
	Now func() time.Time
}

// HTTPHandler serves MCP over Streamable HTTP on loopback. Each caller presents its own
// client token as a bearer token and acts as that client: its sessions share one runtime
// connection dialled with that token, so what they create has that client as its origin,
// and a client holds one runtime connection however many sessions it opens (sessions.go).
type HTTPHandler struct {
	opts   HTTPOptions
	inner  http.Handler
	server *sdk.Server

	mu       sync.Mutex
	tokens   map[string]*tokenConn    // by sha256 of the token
	sessions map[string]*sessionState // by session id
	closed   bool
	stop     chan struct{} // closed by Close: ends the idle sweep
}

// NewHTTPHandler builds the handler of HTTPPath.
func NewHTTPHandler(opts HTTPOptions) *HTTPHandler {
	if opts.MaxSessionsPerToken <= 0 {
		opts.MaxSessionsPerToken = DefaultMaxSessionsPerToken
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &HTTPHandler{opts: opts, tokens: map[string]*tokenConn{}, sessions: map[string]*sessionState{}, stop: make(chan struct{})}
	h.server = NewServer(Options{Version: opts.Version, Logger: opts.Logger, Runtime: h.runtimeFor})
	streamable := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return h.server },
		&sdk.StreamableHTTPOptions{Logger: opts.Logger, MaxRequestBodyBytes: MaxRequestBytes})
	h.inner = challenge(auth.RequireBearerToken(h.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true}), h.trackSessions(streamable))
	go h.sweep()
	return h
}

// ServeHTTP refuses a non-localhost Host header (DNS rebinding), a foreign Origin (a web
// page's script) and an oversized body before anything else, then authenticates the bearer
// token.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !LocalHost(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: Host %q is not localhost; codexhost mcp serves loopback clients only", r.Host), http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !LoopbackOrigin(origin) {
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not a loopback origin; codexhost mcp serves loopback clients only", origin), http.StatusForbidden)
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

// challenge puts `WWW-Authenticate: Bearer` on every 401 of requireToken (RFC 6750 §3):
// without it a client cannot tell that it is to send a bearer token. Only the refusal is
// wrapped; an authenticated request reaches next with the connection's own writer, so
// streaming is untouched.
func challenge(requireToken func(http.Handler) http.Handler, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &challengeWriter{ResponseWriter: w}
		requireToken(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })).ServeHTTP(cw, r)
	})
}

type challengeWriter struct{ http.ResponseWriter }

func (c *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		c.Header().Set("WWW-Authenticate", `Bearer realm="codexhost"`)
	}
	c.ResponseWriter.WriteHeader(code)
}

func tokenKey(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// verify accepts a token that has a live runtime connection, or that the runtime accepts now.
// The connection dialled to check it becomes the token's when the request starts a session
// or belongs to a live one; otherwise it is closed, so that requests of sessions gone (a
// client's reconnecting event stream) hold no runtime connection.
func (h *HTTPHandler) verify(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
	key := tokenKey(token)
	var caller string
	h.mu.Lock()
	tc := h.tokens[key]
	known := tc != nil && tc.client != nil && tc.client.Err() == nil
	if known {
		tc.used, caller = h.opts.Now(), tc.caller
	}
	h.mu.Unlock()
	if !known {
		c, err := h.dial(ctx, token)
		if err != nil {
			return nil, err
		}
		if h.holds(r) {
			caller, _ = h.adopt(key, c)
		} else {
			caller = c.Caller().Client
			_ = c.Close()
		}
	}
	return &auth.TokenInfo{UserID: caller + "/" + key[:16], Extra: map[string]any{"token": token, "key": key}}, nil
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

// runtimeFor is the runtime connection of a tool call's token, shared by all its sessions;
// dialled again when it was lost.
func (h *HTTPHandler) runtimeFor(ctx context.Context, req *sdk.CallToolRequest) (Runtime, error) {
	if req.Extra == nil || req.Extra.TokenInfo == nil {
		return nil, model.Errorf(model.CodePermissionDenied, "send your client token as Authorization: Bearer TOKEN", "no bearer token on the request")
	}
	key, _ := req.Extra.TokenInfo.Extra["key"].(string)
	token, _ := req.Extra.TokenInfo.Extra["token"].(string)
	h.mu.Lock()
	if tc := h.tokens[key]; tc != nil && tc.client != nil && tc.client.Err() == nil {
		tc.used = h.opts.Now()
		h.mu.Unlock()
		return tc.client, nil
	}
	h.mu.Unlock()
	c, err := h.dial(ctx, token)
	if err != nil {
		return nil, model.Errorf(model.CodePermissionDenied, "send a valid client token", "%v", err)
	}
	_, rt := h.adopt(key, c)
	return rt, nil
}

// Close closes every session and runtime connection the handler holds.
func (h *HTTPHandler) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.stop)
	var cs []*api.Client
	for _, tc := range h.tokens {
		if tc.client != nil {
			cs = append(cs, tc.client)
		}
	}
	h.tokens = map[string]*tokenConn{}
	h.mu.Unlock()
	for ss := range h.server.Sessions() {
		_ = ss.Close()
	}
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
// client tokens and is never exposed beyond this machine. localhost is 127.0.0.1 here, not
// whatever a resolver makes of the name.
func ListenLoopback(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, model.Errorf(model.CodeInvalidArgument, "give --listen as 127.0.0.1:PORT or localhost:PORT", "invalid listen address %q: %v", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		host, addr = "127.0.0.1", net.JoinHostPort("127.0.0.1", port)
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
