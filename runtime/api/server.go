package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
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

	// Resource limits (limits.go): the longest line before authentication, open client
	// connections, unauthenticated ones (on each transport), and requests in flight per
	// connection.
	MaxUnauthLineBytes int
	MaxConns           int
	MaxUnauthConns     int
	MaxInflight        int
	// UnixReserve is how many connections past MaxConns only the Unix socket may open, so
	// TCP clients cannot lock out the operator (limits.go).
	UnixReserve int
	// UnauthGrace is how long a connection may stay unauthenticated before a newer one over
	// MaxUnauthConns may close it (limits.go); negative is no grace.
	UnauthGrace time.Duration
	// Per principal (principal.go): connections, and bytes of request lines being read or
	// handled. PrincipalLimits, when set, gives a caller's own allowances.
	MaxConnsPerPrincipal int
	MaxBytesInFlight     int64
	PrincipalLimits      func(Caller) PrincipalLimits
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

	// ctx is the parent of every connection's context; Close cancels it, which is how
	// in-flight handlers learn of the shutdown.
	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	listeners  []*listener
	conns      map[*serverConn]struct{}
	principals map[string]*principal // by capKey (principal.go)
	ordinary   int                   // authenticated connections of principals not reserved
	serving    bool
	closed     bool
	wg         sync.WaitGroup // accept loops, connections, request and event goroutines
	done       chan struct{}  // closed when Close has finished
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
	return &Server{h: h, opts: opts, authFail: make(chan struct{}, 1),
		ctx: ctx, cancel: cancel, conns: make(map[*serverConn]struct{}), principals: make(map[string]*principal),
		done: make(chan struct{})}
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
		return "", listenError(addr, err)
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
		if c := s.track(nc, ln.endpoint, ln.unixPath != ""); c != nil {
			go c.serve()
		}
	}
}

// track registers a new connection, or closes it when the server is closing, or refuses it
// over the caps (limits.go); nil when it was not taken.
func (s *Server) track(nc net.Conn, endpoint string, unix bool) *serverConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = nc.Close()
		return nil
	}
	refuse, evict := s.admitLocked(time.Now(), unix)
	if refuse > 0 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.refuseConn(nc, endpoint, refuse)
		}()
		return nil
	}
	if evict != nil {
		s.logf("runtime api: closing the oldest unauthenticated connection on %s: %d are open", evict.endpoint, s.opts.MaxUnauthConns)
		evict.close()
		delete(s.conns, evict) // its serve loop untracks it again, harmlessly
	}
	ctx, cancel := context.WithCancel(s.ctx)
	c := &serverConn{s: s, nc: nc, endpoint: endpoint, ctx: ctx, cancel: cancel}
	c.accepted, c.unix = time.Now(), unix
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return c
}

func (s *Server) untrack(c *serverConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.releasePrincipalLocked(c)
	s.mu.Unlock()
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
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, syscall.EAGAIN):
		// Only a live listener leaves a connect pending: its backlog is full.
		return model.Errorf(model.CodeFailedPrecondition,
			"the runtime serving this home is busy: retry in a moment; `codexhost doctor` checks it",
			"a runtime is serving this home but did not take a connection on %s within 2s (its queue of new connections is full)", path).
			WithDetail("socket", path)
	default:
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
