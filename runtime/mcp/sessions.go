package mcp

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codexhost/codexhost/runtime/api"
)

// Defaults of HTTPOptions. A client needs a few sessions (one per agent or editor window),
// never hundreds; an idle one is closed so that it holds nothing of the runtime's.
const (
	DefaultMaxSessionsPerToken = 16
	DefaultSessionIdle         = 10 * time.Minute
)

// sessionHeader is the Streamable HTTP transport's session id header.
const sessionHeader = "Mcp-Session-Id"

// tokenConn is one client token's share: its runtime connection and its sessions. Guarded by
// HTTPHandler.mu.
type tokenConn struct {
	caller   string
	client   *api.Client // shared by the token's sessions; nil or lost until dialled again
	sessions int         // live sessions
	pending  int         // new sessions being set up
	used     time.Time   // the last request with the token
}

// sessionState is what the idle sweep knows of a session. Guarded by HTTPHandler.mu.
type sessionState struct {
	key     string
	session *sdk.ServerSession
	last    time.Time // the start or end of its last request
	active  int       // its requests being served (long POSTs are not idle)
}

// adopt makes c the token's runtime connection unless it has a live one, which it keeps (c
// is closed then); the caller and connection to use.
func (h *HTTPHandler) adopt(key string, c *api.Client) (caller string, client *api.Client) {
	h.mu.Lock()
	tc := h.tokens[key]
	if tc == nil {
		tc = &tokenConn{caller: c.Caller().Client}
		if !h.closed {
			h.tokens[key] = tc
		}
	}
	if tc.caller == "" {
		tc.caller = c.Caller().Client
	}
	tc.used = h.opts.Now()
	var drop *api.Client
	switch {
	case h.closed:
		drop = c
	case tc.client != nil && tc.client.Err() == nil && tc.client != c:
		drop = c
	default:
		drop, tc.client = tc.client, c
	}
	caller, client = tc.caller, tc.client
	if client == nil {
		client = c
	}
	h.mu.Unlock()
	if drop != nil {
		_ = drop.Close()
	}
	return caller, client
}

// holds reports whether r will use its token's runtime connection: it starts a session or
// belongs to a live one.
func (h *HTTPHandler) holds(r *http.Request) bool {
	sid := r.Header.Get(sessionHeader)
	if sid == "" {
		return r.Method == http.MethodPost
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[sid] != nil
}

// trackSessions counts each token's sessions, refuses a new one past MaxSessionsPerToken,
// and notes each session's requests for the idle sweep. A GET (the standalone event stream
// a client keeps open) is not activity: only requests the client sends are.
func (h *HTTPHandler) trackSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var key string
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			key, _ = ti.Extra["key"].(string)
		}
		if sid := r.Header.Get(sessionHeader); sid != "" {
			if r.Method != http.MethodGet {
				h.touch(sid, 1)
				defer h.touch(sid, -1)
			}
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		if !h.reserveSession(key) {
			http.Error(w, fmt.Sprintf("Too Many Requests: this client token already has %d MCP sessions open, the cap per token; "+
				"end sessions you no longer use (DELETE %s), or wait: a session idle for %v is closed", h.opts.MaxSessionsPerToken, HTTPPath, h.opts.SessionIdle),
				http.StatusTooManyRequests)
			return
		}
		defer h.unreserveSession(key)
		next.ServeHTTP(&sessionCapture{ResponseWriter: w, h: h, key: key}, r)
	})
}

func (h *HTTPHandler) reserveSession(key string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	tc := h.tokens[key]
	if tc == nil { // its connection was closed meanwhile: it is dialled again on use
		tc = &tokenConn{used: h.opts.Now()}
		h.tokens[key] = tc
	}
	if tc.sessions+tc.pending >= h.opts.MaxSessionsPerToken {
		return false
	}
	tc.pending++
	return true
}

func (h *HTTPHandler) unreserveSession(key string) {
	h.mu.Lock()
	tc := h.tokens[key]
	if tc != nil && tc.pending > 0 {
		tc.pending--
	}
	c := h.releaseIfUnusedLocked(key, tc)
	h.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

// releaseIfUnusedLocked forgets a token left without sessions and returns its connection to
// close, so that no runtime connection outlives the sessions that use it.
func (h *HTTPHandler) releaseIfUnusedLocked(key string, tc *tokenConn) *api.Client {
	if tc == nil || tc.sessions > 0 || tc.pending > 0 || h.tokens[key] != tc {
		return nil
	}
	delete(h.tokens, key)
	return tc.client
}

// sessionCapture registers the session a new-session request created, as its answer's
// headers go out: before the client can send the session's next request.
type sessionCapture struct {
	http.ResponseWriter
	h    *HTTPHandler
	key  string
	done bool
}

func (w *sessionCapture) WriteHeader(code int) {
	w.capture()
	w.ResponseWriter.WriteHeader(code)
}

func (w *sessionCapture) Write(b []byte) (int, error) {
	w.capture()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController flush the event stream.
func (w *sessionCapture) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *sessionCapture) capture() {
	if w.done {
		return
	}
	w.done = true
	if sid := w.Header().Get(sessionHeader); sid != "" {
		w.h.register(sid, w.key)
	}
}

func (h *HTTPHandler) register(sid, key string) {
	var ss *sdk.ServerSession
	for s := range h.server.Sessions() {
		if s.ID() == sid {
			ss = s
			break
		}
	}
	if ss == nil {
		return
	}
	h.mu.Lock()
	tc := h.tokens[key]
	if h.sessions[sid] != nil || tc == nil || h.closed {
		h.mu.Unlock()
		return
	}
	h.sessions[sid] = &sessionState{key: key, session: ss, last: h.opts.Now()}
	tc.sessions++
	h.mu.Unlock()
	go func() {
		_ = ss.Wait()
		h.endSession(sid)
	}()
}

func (h *HTTPHandler) endSession(sid string) {
	h.mu.Lock()
	st := h.sessions[sid]
	delete(h.sessions, sid)
	var c *api.Client
	if st != nil {
		if tc := h.tokens[st.key]; tc != nil {
			tc.sessions--
			c = h.releaseIfUnusedLocked(st.key, tc)
		}
	}
	h.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
}

func (h *HTTPHandler) touch(sid string, d int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st := h.sessions[sid]; st != nil {
		st.active += d
		st.last = h.opts.Now()
	}
}

// sweep runs closeIdle until Close; the clock it compares with is opts.Now.
func (h *HTTPHandler) sweep() {
	t := time.NewTicker(min(max(h.opts.SessionIdle/4, time.Second), time.Minute))
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			h.closeIdle()
		}
	}
}

// closeIdle closes the sessions without a request for SessionIdle, and with them, once a
// token has none left, its runtime connection; also a token's connection that was dialled
// for requests that never made a session. It returns how many sessions it closed.
func (h *HTTPHandler) closeIdle() int {
	now := h.opts.Now()
	var idle []*sdk.ServerSession
	var conns []*api.Client
	h.mu.Lock()
	for _, st := range h.sessions {
		if st.active == 0 && now.Sub(st.last) >= h.opts.SessionIdle {
			idle = append(idle, st.session)
		}
	}
	for key, tc := range h.tokens {
		if tc.sessions == 0 && tc.pending == 0 && now.Sub(tc.used) >= h.opts.SessionIdle {
			if c := h.releaseIfUnusedLocked(key, tc); c != nil {
				conns = append(conns, c)
			}
		}
	}
	h.mu.Unlock()
	for _, ss := range idle {
		_ = ss.Close()
	}
	for _, c := range conns {
		_ = c.Close()
	}
	return len(idle)
}

// LoopbackOrigin reports whether an Origin header names a page served from this machine's
// loopback (http://127.0.0.1:PORT, http://localhost:PORT, http://[::1]:PORT); any other
// origin is a web page elsewhere whose script must not reach the server.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
