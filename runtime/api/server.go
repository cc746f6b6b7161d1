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
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Defaults of ServerOptions.
const (
	DefaultMaxLineBytes     = 8 << 20
	DefaultEventQueue       = 1024
	DefaultAuthTimeout      = 10 * time.Second
	DefaultAuthFailureDelay = 250 * time.Millisecond
	DefaultWriteTimeout     = 30 * time.Second
)

// ServerOptions tune a Server; zero fields take the defaults above.
type ServerOptions struct {
	Version string    // reported in AuthResult
	Log     io.Writer // one line per notable event (dropped connections, panics); nil discards

	MaxLineBytes int // longest request line; a longer one gets an error and the connection closes
	// EventQueue bounds the events queued for one connection. A connection that falls this
	// far behind is dropped: its client reconnects and re-reads state, and no subscriber can
	// stall the handler's fan-out.
	EventQueue int
	// AuthTimeout closes connections that have not authenticated by then.
	AuthTimeout time.Duration
	// AuthFailureDelay is waited before answering a wrong token. Failures wait in turn,
	// server-wide, so guessing runs at most one token per delay however many connections try.
	AuthFailureDelay time.Duration
	// WriteTimeout drops a connection whose peer stops reading for this long.
	WriteTimeout time.Duration

	// Resource limits (limits.go): the longest line before authentication, open
	// connections, unauthenticated ones, and requests in flight per connection.
	MaxUnauthLineBytes int
	MaxConns           int
	MaxUnauthConns     int
	MaxInflight        int
	// UnauthGrace is how long a connection may stay unauthenticated before a newer one over
	// MaxUnauthConns may close it (limits.go); negative is no grace.
	UnauthGrace time.Duration
	// InflightLimit, when set, gives a caller's per-connection limit instead of MaxInflight
	// (0 keeps MaxInflight, negative is unlimited): a follower runtime forwards all its
	// clients' requests over one connection.
	InflightLimit func(Caller) int
}

// ErrServerClosed is returned by Serve and the Listen methods after Close.
var ErrServerClosed = errors.New("api: server closed")

// Server serves the runtime API on any number of listeners.
type Server struct {
	h        Handler
	opts     ServerOptions
	logMu    sync.Mutex
	authFail chan struct{} // one slot: wrong-token replies are delayed one at a time
	room     chan struct{} // one slot: a connection authenticated or left (limits.go)

	// ctx is the parent of every connection's context; Close cancels it, which is how
	// in-flight handlers learn of the shutdown.
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	listeners []*listener
	conns     map[*serverConn]struct{}
	serving   bool
	closed    bool
	wg        sync.WaitGroup // accept loops, connections, request and event goroutines
	done      chan struct{}  // closed when Close has finished
}

type listener struct {
	l         net.Listener
	endpoint  string
	unixPath  string      // socket file to remove on Close, if it is still ours
	unixFile  os.FileInfo // identity of that file
	accepting bool
}

// NewServer returns a server for h. It listens once ListenUnix or ListenTCP is called and
// accepts once Serve runs.
func NewServer(h Handler, opts ServerOptions) *Server {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	if opts.EventQueue <= 0 {
		opts.EventQueue = DefaultEventQueue
	}
	if opts.AuthTimeout <= 0 {
		opts.AuthTimeout = DefaultAuthTimeout
	}
	if opts.AuthFailureDelay <= 0 {
		opts.AuthFailureDelay = DefaultAuthFailureDelay
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	limitsDefaults(&opts)
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{h: h, opts: opts, authFail: make(chan struct{}, 1), room: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, conns: make(map[*serverConn]struct{}), done: make(chan struct{})}
}

// ListenUnix listens on a Unix socket at path (absolute) and returns its endpoint. The file
// is created 0600 whatever the umask. A socket file left by a dead runtime is replaced; one
// that still answers is left alone and the call fails with FAILED_PRECONDITION, because
// another runtime is serving that home.
func (s *Server) ListenUnix(path string) (endpoint string, err error) {
	if !filepath.IsAbs(path) {
		return "", model.Errorf(model.CodeInvalidArgument, "pass an absolute path",
			"socket path %q is not absolute", path)
	}
	path = filepath.Clean(path)
	if len(path) > maxUnixPath {
		return "", model.Errorf(model.CodeInvalidArgument, "use a home directory with a shorter path (CODEXHOST_HOME)",
			"socket path %s is %d bytes; Unix sockets allow at most %d here", path, len(path), maxUnixPath).
			WithDetail("socket", path)
	}
	if s.isClosed() {
		return "", ErrServerClosed
	}
	ul, fi, err := listenUnixPrivate(path)
	if err != nil {
		return "", err
	}
	ln := &listener{l: ul, endpoint: UnixEndpoint(path), unixPath: path, unixFile: fi}
	if err := s.addListener(ln); err != nil {
		ln.close()
		return "", err
	}
	return ln.endpoint, nil
}

// ListenTCP listens on a loopback TCP address ("127.0.0.1:0" picks a free port) and returns
// the endpoint with the real port. Non-loopback addresses are refused: tokens travel in clear
// text.
func (s *Server) ListenTCP(addr string) (endpoint string, err error) {
	addr, err = loopbackListenAddr(addr)
	if err != nil {
		return "", err
	}
	if s.isClosed() {
		return "", ErrServerClosed
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", model.AsError(fmt.Errorf("listen on %s: %w", addr, err))
	}
	ln := &listener{l: l, endpoint: TCPEndpoint(l.Addr().String())}
	if err := s.addListener(ln); err != nil {
		ln.close()
		return "", err
	}
	return ln.endpoint, nil
}

// Endpoints lists the endpoints listened on, in the order they were added.
func (s *Server) Endpoints() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.listeners))
	for i, l := range s.listeners {
		out[i] = l.endpoint
	}
	return out
}

func (s *Server) addListener(ln *listener) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrServerClosed
	}
	s.listeners = append(s.listeners, ln)
	if s.serving {
		s.startAcceptLocked(ln)
	}
	return nil
}

// Serve accepts connections on every listener, including ones added later, until ctx ends
// or Close is called; then it shuts the server down like Close and returns nil.
func (s *Server) Serve(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrServerClosed
	}
	if s.serving {
		s.mu.Unlock()
		return errors.New("api: Serve called twice")
	}
	s.serving = true
	for _, ln := range s.listeners {
		s.startAcceptLocked(ln)
	}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = s.Close() })
	defer stop()
	<-s.done
	return nil
}

// Close stops listening, removes the socket file, closes every connection, cancels the
// context of in-flight handlers and waits for them to return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.closed = true
	listeners := s.listeners
	conns := make([]*serverConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()

	var errs []error
	for _, ln := range listeners {
		if err := ln.close(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, c := range conns {
		c.close()
	}
	s.cancel() // after the connections: see serverConn.close
	s.wg.Wait()
	close(s.done)
	return errors.Join(errs...)
}

// logf writes one line; the mutex keeps lines from concurrent connections whole.
func (s *Server) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = io.WriteString(s.opts.Log, strings.TrimRight(line, "\n")+"\n")
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (ln *listener) close() error {
	err := ln.l.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if ln.unixPath != "" {
		// Remove only our own socket: a runtime started after us may have put its own there.
		if fi, serr := os.Lstat(ln.unixPath); serr == nil && os.SameFile(fi, ln.unixFile) {
			if rerr := os.Remove(ln.unixPath); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
				err = rerr
			}
		}
	}
	return err
}

func (s *Server) startAcceptLocked(ln *listener) {
	if ln.accepting {
		return
	}
	ln.accepting = true
	s.wg.Add(1)
	go s.acceptLoop(ln)
}

func (s *Server) acceptLoop(ln *listener) {
	defer s.wg.Done()
	var delay time.Duration
	for {
		nc, err := ln.l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.ctx.Err() != nil {
				return
			}
			// Usually EMFILE: back off instead of spinning, as net/http does.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.logf("runtime api: accept on %s failed, retrying in %v: %v", ln.endpoint, delay, err)
			select {
			case <-time.After(delay):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		delay = 0
		if !s.admit(nc, ln.endpoint) {
			return
		}
	}
}

// track registers a new connection, or closes it when the server is closing. wait > 0 says
// it was not taken yet: too many connections are still young and unauthenticated.
func (s *Server) track(nc net.Conn, endpoint string) (c *serverConn, wait time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = nc.Close()
		return nil, 0
	}
	refuse, evict, wait := s.admitLocked(time.Now())
	if wait > 0 {
		return nil, wait
	}
	if refuse {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.refuseConn(nc, endpoint)
		}()
		return nil, 0
	}
	if evict != nil {
		s.logf("runtime api: closing the oldest unauthenticated connection on %s: %d are open", evict.endpoint, s.opts.MaxUnauthConns)
		evict.close()
		delete(s.conns, evict) // its serve loop untracks it again, harmlessly
	}
	ctx, cancel := context.WithCancel(s.ctx)
	c = &serverConn{s: s, nc: nc, endpoint: endpoint, ctx: ctx, cancel: cancel}
	c.accepted = time.Now()
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return c, 0
}

func (s *Server) untrack(c *serverConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.madeRoom()
}

// throttleAuthFailure waits AuthFailureDelay, one failure at a time across the server.
func (s *Server) throttleAuthFailure(ctx context.Context) {
	select {
	case s.authFail <- struct{}{}:
	case <-ctx.Done():
		return
	}
	defer func() { <-s.authFail }()
	t := time.NewTimer(s.opts.AuthFailureDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// serverConn is one client connection. Requests run concurrently; every write goes through
// write, under wmu, so lines never interleave.
type serverConn struct {
	s        *Server
	nc       net.Conn
	endpoint string // the listener's, for logs
	ctx      context.Context
	cancel   context.CancelFunc

	// Set by the read loop before it starts any request goroutine, then only read.
	caller     Caller
	connLimits // authed, the time of accept, requests in flight

	wmu           sync.Mutex
	closeOnce     sync.Once
	subscribeOnce sync.Once
}

// close ends the connection, then cancels in-flight handlers. In that order, because a
// handler returning ctx.Err() must not get its answer out: the client is to see the
// connection lost (RUNTIME_UNREACHABLE), not a stray "context canceled".
func (c *serverConn) close() {
	c.closeOnce.Do(func() {
		_ = c.nc.Close()
		c.cancel()
	})
}

func (c *serverConn) serve() {
	defer c.s.wg.Done()
	defer c.s.untrack(c)
	// Client EOF also ends it: half-closed connections are not supported, and a client that
	// went away should not keep a thread.wait running.
	defer c.close()

	br := bufio.NewReaderSize(c.nc, 64<<10)
	var scratch []byte
	_ = c.nc.SetReadDeadline(time.Now().Add(c.s.opts.AuthTimeout))
	for {
		max := c.lineLimit()
		line, err := readLine(br, max, &scratch)
		if errors.Is(err, errLineTooLong) {
			c.s.logf("runtime api: closing a connection on %s (caller %s) that sent a line over %d bytes",
				c.endpoint, c.caller, max)
			c.write(encodeError(nil, rpcInvalidRequest, model.Errorf(model.CodeInvalidArgument,
				"send smaller requests", "request line exceeds %d bytes; closing the connection", max)))
			return
		}
		if len(bytes.TrimSpace(line)) > 0 && !c.handleLine(line) {
			return
		}
		if err != nil {
			var ne net.Error
			if !c.authed.Load() && errors.As(err, &ne) && ne.Timeout() {
				c.s.logf("runtime api: closing a connection on %s that did not authenticate within %v",
					c.endpoint, c.s.opts.AuthTimeout)
			}
			return
		}
	}
}

// handleLine handles one request line; false closes the connection. Before authentication
// malformed input closes it, which also ends cross-protocol attempts (an HTTP request sent
// to the TCP port) at their first line.
func (c *serverConn) handleLine(line []byte) bool {
	var req wireRequest
	if err := json.Unmarshal(line, &req); err != nil {
		code, what := rpcParseError, "request is not valid JSON"
		if json.Valid(line) {
			code, what = rpcInvalidRequest, "request is not a JSON-RPC request object"
		}
		c.write(encodeError(nil, code, model.Errorf(model.CodeInvalidArgument,
			"send one JSON-RPC 2.0 request object per line", "%s: %v", what, err)))
		return c.authed.Load()
	}
	if req.ID == nil {
		return true // a notification: nothing is defined for clients to notify
	}
	if !validID(req.ID) {
		c.write(encodeError(nil, rpcInvalidRequest, model.Errorf(model.CodeInvalidArgument,
			"use a number or a string of valid UTF-8 as id", "request id must be a string of valid UTF-8, a number or null")))
		return c.authed.Load()
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		c.write(encodeError(req.ID, rpcInvalidRequest, model.Errorf(model.CodeInvalidArgument,
			`send {"jsonrpc":"2.0","id":…,"method":…,"params":…}`, "invalid request: jsonrpc must be \"2.0\" and method must be set")))
		return c.authed.Load()
	}
	if !c.authed.Load() {
		return c.handleAuth(&req)
	}
	switch req.Method {
	case MethodAuth:
		c.write(encodeError(req.ID, rpcServerError, model.Errorf(model.CodeFailedPrecondition,
			"authenticate once per connection", "this connection is already authenticated")))
	case MethodEventsSubscribe:
		if err := c.s.authorize(c.caller, req.Method); err != nil {
			c.write(encodeError(req.ID, rpcServerError, model.AsError(err)))
			return true
		}
		c.goRequest(&req, c.subscribe)
	default:
		c.goRequest(&req, c.handle)
	}
	return true
}

func (c *serverConn) handleAuth(req *wireRequest) bool {
	if req.Method != MethodAuth {
		c.write(encodeError(req.ID, rpcServerError, model.Errorf(model.CodePermissionDenied,
			`authenticate first: send "auth" with {"token": …} as the first request`,
			"method %q needs an authenticated connection", req.Method).WithDetail("method", req.Method)))
		return true
	}
	var p AuthParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			c.write(encodeError(req.ID, rpcServerError, model.Errorf(model.CodeInvalidArgument,
				`send {"token": "…"} as params`, "invalid auth params: %v", err)))
			return true
		}
	}
	caller, ok := Caller{}, false
	if p.Token != "" {
		caller, ok = c.s.h.Authenticate(p.Token)
	}
	if !ok {
		c.s.logf("runtime api: rejected a token on %s", c.endpoint)
		c.s.throttleAuthFailure(c.ctx)
		c.write(encodeError(req.ID, rpcServerError, model.Errorf(model.CodePermissionDenied,
			"use the token the runtime gave this process (CODEXHOST_RUNTIME_TOKEN) or a client token configured in the runtime's config.toml",
			"the runtime rejected the token")))
		return false
	}
	c.caller = caller
	c.authed.Store(true)
	c.s.madeRoom()
	_ = c.nc.SetReadDeadline(time.Time{})
	c.writeResult(req.ID, "auth", AuthResult{Caller: caller, Version: c.s.opts.Version})
	return true
}

func (s *Server) authorize(caller Caller, method string) error { return s.h.Authorize(caller, method) }

// goRequest runs one request in its own goroutine so a slow method (thread.wait) does not
// hold up the others on the connection.
func (c *serverConn) goRequest(req *wireRequest, fn func(*wireRequest) (any, error)) {
	if !c.startRequest(req) {
		return
	}
	c.s.wg.Add(1) // the read loop is counted, so the counter cannot be zero here
	go func() {
		defer c.s.wg.Done()
		defer c.inflight.Add(-1)
		defer func() {
			if r := recover(); r != nil {
				c.s.logf("runtime api: method %s panicked: %v\n%s", req.Method, r, debug.Stack())
				c.write(encodeError(req.ID, rpcServerError, model.AsError(fmt.Errorf("method %s panicked: %v", req.Method, r))))
			}
		}()
		res, err := fn(req)
		if err != nil {
			c.writeHandlerError(req, err)
			return
		}
		c.writeResult(req.ID, req.Method, res)
	}()
}

func (c *serverConn) handle(req *wireRequest) (any, error) {
	params := req.Params
	if len(params) == 0 {
		params = nullJSON // so handlers can json.Unmarshal it unconditionally
	}
	ctx := c.ctx
	if string(req.ID) != "null" { // a null id names no call an event could be matched to
		ctx = context.WithValue(ctx, callKey{}, &callScope{c: c, id: req.ID})
	}
	return c.s.h.Handle(ctx, c.caller, req.Method, params)
}

type callKey struct{}

// callScope is the request a handler's context belongs to.
type callScope struct {
	c  *serverConn
	id json.RawMessage
}

// Notify sends ev, tagged with the request's id (Event.Request), to the connection that made
// the request ctx belongs to; false when ctx is no request's or the connection is gone. It
// writes before returning, so what a handler notifies reaches the client before its answer.
// Nothing else sees it: it is that caller's own progress, not a runtime event.
func Notify(ctx context.Context, ev Event) bool {
	sc, ok := ctx.Value(callKey{}).(*callScope)
	if !ok || sc.c.ctx.Err() != nil {
		return false
	}
	ev.Request = sc.id
	line := appendEvent(nil, ev)
	return len(line) > 0 && sc.c.write(line)
}

// subscribe registers the connection with the handler once. Events are queued and written
// by their own goroutine, so the handler's fan-out never waits on this client.
func (c *serverConn) subscribe(*wireRequest) (any, error) {
	c.subscribeOnce.Do(func() {
		queue := make(chan Event, c.s.opts.EventQueue)
		c.s.wg.Add(1)
		go c.writeEvents(queue)
		c.s.h.SubscribeCaller(c.ctx, c.caller, func(ev Event) {
			if c.ctx.Err() != nil {
				return
			}
			select {
			case queue <- ev:
			default:
				c.s.logf("runtime api: dropping a connection on %s (caller %s) that does not keep up with events (%d queued)",
					c.endpoint, c.caller, cap(queue))
				c.close()
			}
		})
	})
	return struct{}{}, nil
}

func (c *serverConn) writeEvents(queue <-chan Event) {
	defer c.s.wg.Done()
	var buf []byte
	for {
		select {
		case <-c.ctx.Done():
			return
		case ev := <-queue:
			// Take whatever else is queued into the same write.
			buf = appendEvent(buf[:0], ev)
			for n := len(queue); n > 0; n-- {
				buf = appendEvent(buf, <-queue)
			}
			if !c.write(buf) {
				return
			}
		}
	}
}

// appendEvent appends ev's notification line; an event that cannot be encoded (a time out
// of JSON's range in a catalog row) is left out rather than breaking the stream.
func appendEvent(buf []byte, ev Event) []byte {
	b, err := json.Marshal(ev)
	if err != nil {
		return buf
	}
	buf = append(buf, `{"jsonrpc":"2.0","method":"`+NotificationEvent+`","params":`...)
	buf = append(buf, b...)
	return append(buf, "}\n"...)
}

func (c *serverConn) writeResult(id json.RawMessage, method string, res any) {
	b, err := json.Marshal(res)
	if err != nil {
		c.write(encodeError(id, rpcServerError, model.AsError(fmt.Errorf("encode the result of %s: %w", method, err))))
		return
	}
	c.write(appendResult(make([]byte, 0, len(b)+len(id)+40), id, b))
}

func (c *serverConn) writeHandlerError(req *wireRequest, err error) {
	if errors.Is(err, ErrUnknownMethod) {
		c.write(encodeError(req.ID, rpcMethodNotFound, model.Errorf(model.CodeInvalidArgument,
			"the runtime may be older than this client; compare `codexhost --version` with the runtime's version",
			"unknown method %q", req.Method).WithDetail("method", req.Method)))
		return
	}
	c.write(encodeError(req.ID, rpcServerError, model.AsError(err)))
}

// write sends whole lines; on failure (peer gone or not reading for WriteTimeout) the
// connection is closed and false returned.
func (c *serverConn) write(b []byte) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.s.opts.WriteTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.close()
		return false
	}
	return true
}

// listenUnixPrivate binds the socket at path with mode 0600. It binds inside a fresh 0700
// directory, fixes the mode there, then hard-links the socket into place: the file never
// appears at path with a looser mode, and the link fails rather than replacing a socket
// another runtime created meanwhile. The umask is not touched because it is process-wide
// and inherited by the processes the runtime starts.
func listenUnixPrivate(path string) (*net.UnixListener, os.FileInfo, error) {
	for attempt := 0; ; attempt++ {
		if err := clearStaleSocket(path); err != nil {
			return nil, nil, err
		}
		l, fi, err := bindPrivate(path)
		if errors.Is(err, os.ErrExist) && attempt == 0 {
			continue // someone created it since the check: look again
		}
		if errors.Is(err, os.ErrExist) {
			return nil, nil, model.Errorf(model.CodeFailedPrecondition,
				"stop the other runtime, or retry", "socket %s keeps being recreated by another process", path).
				WithDetail("socket", path)
		}
		if err != nil {
			return nil, nil, model.AsError(err)
		}
		return l, fi, nil
	}
}

// clearStaleSocket removes the socket at path only if nothing answers on it.
func clearStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return model.AsError(fmt.Errorf("inspect socket path: %w", err))
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return model.Errorf(model.CodeFailedPrecondition, "move that file away; the runtime's socket goes there",
			"%s exists and is not a socket", path).WithDetail("socket", path)
	}
	nc, err := net.DialTimeout("unix", path, 2*time.Second)
	if err == nil {
		_ = nc.Close()
		return model.Errorf(model.CodeFailedPrecondition,
			"use the runtime that is running, or stop it before starting another one on this home",
			"another runtime is serving this home: its socket %s answers", path).WithDetail("socket", path)
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return model.AsError(fmt.Errorf("remove stale socket: %w", err))
		}
		return nil
	case errors.Is(err, syscall.ENOENT):
		return nil
	default:
		// A timeout means a live but busy runtime (full backlog); anything else is unclear too.
		return model.Errorf(model.CodeFailedPrecondition,
			"if no runtime uses this home, remove the socket file and retry",
			"cannot tell whether a runtime is serving %s: %v", path, err).WithDetail("socket", path)
	}
}

// bindPrivate binds path as described at listenUnixPrivate. An existing path fails with an
// error matching os.ErrExist.
func bindPrivate(path string) (*net.UnixListener, os.FileInfo, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".")
	if err != nil {
		return nil, nil, fmt.Errorf("create socket directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	bindPath, direct := filepath.Join(tmp, "s"), false
	if len(bindPath) > maxUnixPath {
		// The detour does not fit the path limit; the home directory (0700) still keeps
		// others out during the moment before chmod.
		bindPath, direct = path, true
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: bindPath, Net: "unix"})
	if err != nil {
		if direct && errors.Is(err, syscall.EADDRINUSE) {
			return nil, nil, fmt.Errorf("listen on %s: %w", path, os.ErrExist)
		}
		return nil, nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// The file is removed by listener.close, and only while it is still ours.
	l.SetUnlinkOnClose(false)
	placed := direct // whether path is now our socket, to undo on failure
	fail := func(err error) (*net.UnixListener, os.FileInfo, error) {
		_ = l.Close()
		if placed {
			_ = os.Remove(path)
		}
		return nil, nil, err
	}
	if err := os.Chmod(bindPath, 0o600); err != nil {
		return fail(fmt.Errorf("chmod socket: %w", err))
	}
	if !direct {
		if err := os.Link(bindPath, path); err != nil {
			if errors.Is(err, os.ErrExist) {
				_ = l.Close()
				return nil, nil, fmt.Errorf("link socket into %s: %w", path, err)
			}
			// Some filesystems refuse hard links; the liveness check above already ran.
			if err := os.Rename(bindPath, path); err != nil {
				_ = l.Close()
				return nil, nil, fmt.Errorf("move socket into %s: %w", path, err)
			}
		}
		placed = true
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fail(fmt.Errorf("inspect socket: %w", err))
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		return fail(fmt.Errorf("socket %s has mode %v, want 0600", path, fi.Mode()))
	}
	return l, fi, nil
}
