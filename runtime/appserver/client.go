// Package appserver is a JSON-RPC client of the official `codex app-server`, spoken over the
// child's stdin and stdout, one JSON object per line.
package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Defaults chosen from observed timings: spawn → initialize takes 0.3–0.6 s on a fresh home,
// several seconds on a loaded machine.
const (
	DefaultInitTimeout    = 20 * time.Second
	DefaultRequestTimeout = 60 * time.Second
	// maxLineBytes bounds one message from the App Server. Pages are bounded by callers, so a
	// line this long means something is wrong; it is dropped instead of exhausting memory.
	maxLineBytes = 128 << 20
	// subscriberQueue bounds the notifications kept for one slow subscriber; beyond it the
	// oldest are dropped and counted, because the reader must never block on a subscriber.
	subscriberQueue = 16384
)

// Config says how to start the App Server. Env is the child's whole environment: nothing is
// inherited from this process, so the caller decides exactly which variables it sees.
type Config struct {
	Bin            string   // path of the codex binary (see Locate)
	Args           []string // extra arguments after `app-server`
	Env            []string // the complete environment of the child
	Dir            string   // working directory of the child
	StderrLog      string   // file receiving the child's stderr (created 0600); empty discards it
	ClientName     string   // initialize clientInfo.name (also the originator Codex records)
	ClientVersion  string
	InitTimeout    time.Duration
	RequestTimeout time.Duration // applied to calls whose context has no deadline
}

// Notification is a message from the App Server without a response: a notification, or a
// server→client request (ID set) that no registered handler answered.
type Notification struct {
	Method string
	Params json.RawMessage
	ID     json.RawMessage // set only for server requests
}

// RequestHandler answers a server→client request (for example an approval). Requests without
// a handler are left unanswered on purpose: a passive client must never approve anything.
type RequestHandler func(ctx context.Context, params json.RawMessage) (any, error)

// RPCError is an error response of the App Server.
type RPCError struct {
	Method  string
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("app-server %s: %s (code %d)", e.Method, e.Message, e.Code)
}

// ErrExited is wrapped by every error of a call that could not complete because the App
// Server process is gone.
var ErrExited = errors.New("codex app-server exited")

// Client talks to one App Server process at a time; Restart replaces a dead one.
type Client struct {
	Calls // the typed calls (methods.go), over this client
	cfg   Config

	mu   sync.Mutex
	proc *process

	subMu sync.Mutex
	subs  map[*subscriber]struct{}

	handlerMu sync.RWMutex
	handlers  map[string]RequestHandler

	malformed atomic.Int64
	restarts  atomic.Int64
}

type process struct {
	cmd *exec.Cmd
	// pid is the App Server's own; supervised says cmd is its supervisor (see startServer).
	pid        int
	supervised bool
	stdin      io.WriteCloser
	stderr     *os.File
	writeMu    sync.Mutex
	nextID     atomic.Int64

	pendingMu sync.Mutex
	pending   map[int64]chan rpcResult
	exited    bool

	done    chan struct{} // closed when the process is gone and every pending call failed
	exitErr error         // why it is gone; valid after done is closed
	info    InitializeResult
}

type rpcResult struct {
	result json.RawMessage
	err    error
}

// wireMessage covers every message shape; which fields are set tells them apart. Server
// requests and client responses use independent id counters, so a message with a method is a
// request or notification even when its id equals one of ours.
type wireMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *RPCError       `json:"error,omitempty"`
}

func newClient(cfg Config) *Client {
	if cfg.InitTimeout <= 0 {
		cfg.InitTimeout = DefaultInitTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "codexhost"
	}
	if cfg.ClientVersion == "" {
		cfg.ClientVersion = "0"
	}
	c := &Client{cfg: cfg, subs: map[*subscriber]struct{}{}, handlers: map[string]RequestHandler{}}
	c.Calls = On(c)
	return c
}

// request is an outgoing call; a struct rather than a map keeps encoding cheap.
type request struct {
	ID     int64  `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// Start spawns the App Server and completes the initialize handshake.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	c := newClient(cfg)
	p, err := c.spawn(ctx)
	if err != nil {
		return nil, err
	}
	c.proc = p
	return c, nil
}

func (c *Client) spawn(ctx context.Context) (*process, error) {
	if c.cfg.Bin == "" {
		return nil, model.Errorf(model.CodeAppServerUnavailable, locateHint, "no codex binary configured")
	}
	args := append([]string{"app-server"}, c.cfg.Args...)
	cmd := exec.Command(c.cfg.Bin, args...)
	// A non-nil empty slice: exec inherits the parent's environment when Env is nil.
	cmd.Env = append([]string{}, c.cfg.Env...)
	cmd.Dir = c.cfg.Dir
	// Own process group (and supervisor) so that the npm wrapper and anything it spawns die
	// together: see startServer.

	var stderr *os.File
	if c.cfg.StderrLog != "" {
		f, err := os.OpenFile(c.cfg.StderrLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, model.Errorf(model.CodeAppServerUnavailable, "check that the log directory exists and is writable", "open app-server log: %v", err)
		}
		stderr = f
		cmd.Stderr = f
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		closeFile(stderr)
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		closeFile(stderr)
		return nil, err
	}
	pid, supervised, err := startServer(cmd, c.cfg.InitTimeout)
	if err != nil {
		closeFile(stderr)
		return nil, model.Errorf(model.CodeAppServerUnavailable, locateHint, "start %s app-server: %v", c.cfg.Bin, err)
	}
	p := &process{cmd: cmd, pid: pid, supervised: supervised, stdin: stdin, stderr: stderr, pending: map[int64]chan rpcResult{}, done: make(chan struct{})}
	if err := c.attach(ctx, p, stdout); err != nil {
		return nil, err
	}
	return p, nil
}

// attach runs the reader of a started process and completes the initialize handshake.
func (c *Client) attach(ctx context.Context, p *process, stdout io.Reader) error {
	go c.readLoop(p, stdout)

	initCtx, cancel := context.WithTimeout(ctx, c.cfg.InitTimeout)
	defer cancel()
	params := map[string]any{
		"clientInfo":   map[string]string{"name": c.cfg.ClientName, "title": "codexhost", "version": c.cfg.ClientVersion},
		"capabilities": map[string]any{"experimentalApi": true},
	}
	raw, err := p.call(initCtx, methodInitialize, params)
	if err == nil {
		err = json.Unmarshal(raw, &p.info)
	}
	if err != nil {
		p.kill()
		<-p.done
		if errors.Is(err, context.DeadlineExceeded) {
			return model.Errorf(model.CodeAppServerUnavailable,
				"check the log "+c.logName()+"; the App Server may be misconfigured or the machine overloaded",
				"codex app-server did not answer initialize within %s", c.cfg.InitTimeout)
		}
		return model.Errorf(model.CodeAppServerUnavailable, "check the log "+c.logName(), "initialize codex app-server: %v", err)
	}
	if err := p.notify(methodInitialized, nil); err != nil {
		p.kill()
		<-p.done
		return model.Errorf(model.CodeAppServerUnavailable, "check the log "+c.logName(), "initialize codex app-server: %v", err)
	}
	return nil
}

func (c *Client) logName() string {
	if c.cfg.StderrLog == "" {
		return "(stderr not captured)"
	}
	return c.cfg.StderrLog
}

func closeFile(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}

func (c *Client) current() *process {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proc
}

// Call sends a request and decodes its result into out (which may be nil). A context without
// a deadline gets the configured request timeout.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.RequestTimeout)
		defer cancel()
	}
	p := c.current()
	if p == nil {
		return fmt.Errorf("%w: client closed", ErrExited)
	}
	raw, err := p.call(ctx, method, params)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("app-server %s: decode result: %w", method, err)
	}
	return nil
}

// Done is closed when the current process exits; call Restart to get a new one.
func (c *Client) Done() <-chan struct{} {
	p := c.current()
	if p == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return p.done
}

// Err says why the current process exited, or nil while it runs.
func (c *Client) Err() error {
	p := c.current()
	if p == nil {
		return fmt.Errorf("%w: client closed", ErrExited)
	}
	select {
	case <-p.done:
		return p.exitErr
	default:
		return nil
	}
}

// Info is what initialize returned for the current process.
func (c *Client) Info() InitializeResult {
	if p := c.current(); p != nil {
		return p.info
	}
	return InitializeResult{}
}

// Pid of the current App Server process (the process group leader).
func (c *Client) Pid() int {
	if p := c.current(); p != nil {
		return p.pid
	}
	return 0
}

// Malformed counts lines from the App Server that were not JSON-RPC messages.
func (c *Client) Malformed() int64 { return c.malformed.Load() }

// Restarts counts successful restarts.
func (c *Client) Restarts() int64 { return c.restarts.Load() }

// Restart stops the current process (if it still runs) and starts a new one. Pending calls
// of the old process fail with ErrExited.
func (c *Client) Restart(ctx context.Context) error {
	c.mu.Lock()
	old := c.proc
	c.proc = nil
	c.mu.Unlock()
	if old != nil {
		old.kill()
		<-old.done
	}
	p, err := c.spawn(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.proc = p
	c.mu.Unlock()
	c.restarts.Add(1)
	return nil
}

// Close stops the App Server: stdin closes first so it can exit cleanly, then the process
// group is killed if it is still there after a short grace.
func (c *Client) Close() error {
	c.mu.Lock()
	p := c.proc
	c.proc = nil
	c.mu.Unlock()
	if p != nil {
		_ = p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
			p.kill()
			<-p.done
		}
		// Whatever is left of its group dies with it (the supervisor, when there is one, has
		// already ended all below it).
		if p.cmd != nil && p.cmd.Process != nil {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	c.subMu.Lock()
	for s := range c.subs {
		s.close()
		delete(c.subs, s)
	}
	c.subMu.Unlock()
	return nil
}
