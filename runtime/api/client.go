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
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codexhost/codexhost/model"
)

// DefaultDialTimeout bounds Dial (connect and authenticate) when its context has no
// deadline, so a wedged runtime does not hang a CLI command forever.
const DefaultDialTimeout = 10 * time.Second

// UnreachableHint is the hint of the RUNTIME_UNREACHABLE error Dial returns when it cannot
// connect.
const UnreachableHint = "if you are inside a sandboxed agent session, use a session sandbox that allows local connections, or ask the user to run the command; otherwise start the runtime with `codexhost serve`"

const (
	lostHint = "the runtime stopped or closed the connection; check that it is running (`codexhost serve`) and retry"
	// maxResponseLine guards memory against a broken peer; real answers are paged far below it.
	maxResponseLine = 256 << 20
	// eventBuffer is how far an Events reader may fall behind before its channel is closed.
	eventBuffer = 1024
)

// Client is an authenticated connection to a runtime. Its methods are safe for concurrent
// use; calls are matched to answers by id.
type Client struct {
	endpoint string
	nc       net.Conn
	caller   Caller
	version  string
	nextID   atomic.Uint64
	wmu      sync.Mutex

	mu      sync.Mutex
	pending map[uint64]chan callResult
	subs    map[*subscription]struct{}
	err     *model.Error // why the connection is unusable; nil while it works
	lastErr string       // a connection-level error the server sent (id null), for the loss message
	// refusal is such an error saying the runtime is at a connection limit: the connection
	// is then lost for that reason, not because the runtime is unreachable.
	refusal *model.Error
	// progress holds the calls that take their own events (CallEvents); guarded by mu.
	progress map[uint64]*callEvents

	readerDone chan struct{}
}

type callResult struct {
	result json.RawMessage
	err    *model.Error
}

type subscription struct {
	ch   chan Event
	stop func() bool
}

// Dial connects to endpoint and authenticates with token. ctx bounds only the dial and the
// authentication (DefaultDialTimeout when it has no deadline), not the connection's life.
// Errors are *model.Error: INVALID_ARGUMENT for a malformed endpoint, RUNTIME_UNREACHABLE
// when nothing answers, PERMISSION_DENIED (from the server) for a rejected token.
func Dial(ctx context.Context, endpoint, token string) (*Client, error) {
	network, addr, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultDialTimeout)
		defer cancel()
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, model.Errorf(model.CodeRuntimeUnreachable, UnreachableHint,
			"cannot connect to the runtime at %s: %s", endpoint, osReason(err)).WithDetail("endpoint", endpoint)
	}
	c := &Client{endpoint: endpoint, nc: nc, pending: make(map[uint64]chan callResult),
		progress: make(map[uint64]*callEvents), subs: make(map[*subscription]struct{}), readerDone: make(chan struct{})}
	go c.readLoop()
	res, err := Auth.Call(ctx, c, AuthParams{Token: token})
	if err != nil {
		_ = c.Close()
		var me *model.Error
		if !errors.As(err, &me) {
			me = model.Errorf(model.CodeRuntimeUnreachable,
				"the runtime accepted the connection but did not answer; check it with `codexhost doctor`",
				"no answer from the runtime at %s: %v", endpoint, err).WithDetail("endpoint", endpoint)
		}
		return nil, me
	}
	c.caller, c.version = res.Caller, res.Version
	return c, nil
}

// osReason is the OS's words for a dial failure ("connection refused"), without Go's
// "dial unix /path: connect:" prefix, since the message names the endpoint already.
func osReason(err error) string {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return err.Error()
}

// Endpoint is the endpoint the client dialed.
func (c *Client) Endpoint() string { return c.endpoint }

// Caller is who the runtime authenticated this connection as.
func (c *Client) Caller() Caller { return c.caller }

// Err returns why the connection ended, or nil while it works.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return nil
	}
	return c.err
}

// Version is the runtime's version, from the auth answer.
func (c *Client) Version() string { return c.version }

// Call sends method with params (nil for none) and decodes the result into out (nil to
// discard it). Server errors come back as *model.Error. If ctx ends first Call returns
// ctx.Err() and the answer, when it comes, is dropped; the runtime is not told. A lost
// connection fails every pending call with RUNTIME_UNREACHABLE.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	return c.call(ctx, method, params, out, nil)
}

// CallEvents is Call, and hands fn, on the caller's goroutine and in order, the events the
// runtime sends for this call (see Notify), all of them before it returns. They reach no
// Events subscriber.
func (c *Client) CallEvents(ctx context.Context, method string, params, out any, fn func(Event)) error {
	return c.call(ctx, method, params, out, fn)
}

// callEvents queues a call's events; the reader never waits for the caller.
type callEvents struct {
	mu    sync.Mutex
	queue []Event
	ready chan struct{} // one slot: something was queued
}

func (q *callEvents) push(ev Event) {
	q.mu.Lock()
	q.queue = append(q.queue, ev)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *callEvents) deliver(fn func(Event)) {
	q.mu.Lock()
	evs := q.queue
	q.queue = nil
	q.mu.Unlock()
	for _, ev := range evs {
		fn(ev)
	}
}

func (c *Client) call(ctx context.Context, method string, params, out any, fn func(Event)) error {
	line, id, err := c.encodeRequest(method, params)
	if err != nil {
		return err
	}
	ch := make(chan callResult, 1)
	var evq *callEvents
	var ready chan struct{} // nil without fn: never selected
	if fn != nil {
		evq = &callEvents{ready: make(chan struct{}, 1)}
		ready = evq.ready
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.pending[id] = ch
	if evq != nil {
		c.progress[id] = evq
		defer func() {
			c.mu.Lock()
			delete(c.progress, id)
			c.mu.Unlock()
		}()
	}
	c.mu.Unlock()

	c.wmu.Lock()
	_, werr := c.nc.Write(line)
	c.wmu.Unlock()
	if werr != nil {
		// A partial line may have gone out: the stream is unusable for everyone.
		c.shutdown(werr)
		_ = c.nc.Close()
	}

	for {
		select {
		case <-ready:
			evq.deliver(fn)
		case r := <-ch:
			if evq != nil {
				// The reader queued the call's events before its answer.
				evq.deliver(fn)
			}
			if r.err != nil {
				return r.err
			}
			if out != nil {
				if err := json.Unmarshal(r.result, out); err != nil {
					return model.AsError(fmt.Errorf("decode the runtime's answer to %s: %w", method, err))
				}
			}
			return nil
		case <-ctx.Done():
			c.mu.Lock()
			delete(c.pending, id)
			c.mu.Unlock()
			return ctx.Err()
		}
	}
}

func (c *Client) encodeRequest(method string, params any) ([]byte, uint64, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, 0, model.AsError(err)
	}
	var p []byte
	if params != nil {
		if p, err = json.Marshal(params); err != nil {
			return nil, 0, model.AsError(fmt.Errorf("encode the params of %s: %w", method, err))
		}
	}
	id := c.nextID.Add(1)
	line := make([]byte, 0, len(m)+len(p)+64)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = strconv.AppendUint(line, id, 10)
	line = append(line, `,"method":`...)
	line = append(line, m...)
	if p != nil {
		line = append(line, `,"params":`...)
		line = append(line, p...)
	}
	line = append(line, "}\n"...)
	// The server would drop the whole connection for it; fail only this call.
	if len(line)-1 > DefaultMaxLineBytes {
		return nil, 0, model.Errorf(model.CodeInvalidArgument, "send less data in one request",
			"the %s request is %d bytes; the runtime accepts at most %d", method, len(line)-1, DefaultMaxLineBytes)
	}
	return line, id, nil
}

// Events subscribes this connection to the runtime's events and delivers them until ctx
// ends, the connection closes, or the reader falls eventBuffer events behind; in every case
// the channel is closed, and the reader should re-read state before subscribing again.
func (c *Client) Events(ctx context.Context) (<-chan Event, error) {
	sub := &subscription{ch: make(chan Event, eventBuffer)}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	// Registered before subscribing so nothing pushed after the answer can be missed.
	c.subs[sub] = struct{}{}
	c.mu.Unlock()
	if _, err := EventsSubscribe.Call(ctx, c, struct{}{}); err != nil {
		c.unsubscribe(sub)
		return nil, err
	}
	c.mu.Lock()
	if _, ok := c.subs[sub]; ok {
		sub.stop = context.AfterFunc(ctx, func() { c.unsubscribe(sub) })
	}
	c.mu.Unlock()
	return sub.ch, nil
}

func (c *Client) unsubscribe(sub *subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeSubLocked(sub)
}

func (c *Client) removeSubLocked(sub *subscription) {
	if _, ok := c.subs[sub]; !ok {
		return
	}
	delete(c.subs, sub)
	close(sub.ch)
	if sub.stop != nil {
		sub.stop()
	}
}

// Close closes the connection; pending calls fail with RUNTIME_UNREACHABLE and event
// channels close.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.err == nil {
		c.err = model.Errorf(model.CodeRuntimeUnreachable, "dial the runtime again",
			"the connection to the runtime at %s was closed by this client", c.endpoint).WithDetail("endpoint", c.endpoint)
	}
	c.mu.Unlock()
	err := c.nc.Close()
	<-c.readerDone
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

func (c *Client) readLoop() {
	defer close(c.readerDone)
	br := bufio.NewReaderSize(c.nc, 64<<10)
	var scratch []byte
	for {
		line, err := readLine(br, maxResponseLine, &scratch)
		if len(bytes.TrimSpace(line)) > 0 {
			if derr := c.dispatch(line); derr != nil {
				err = derr
			}
		}
		if err != nil {
			c.shutdown(err)
			_ = c.nc.Close()
			return
		}
	}
}

func (c *Client) dispatch(line []byte) error {
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("invalid message from the runtime: %w", err)
	}
	if m.ID == nil {
		if m.Method == NotificationEvent {
			var ev Event
			if json.Unmarshal(m.Params, &ev) != nil {
				return nil
			}
			if len(ev.Request) > 0 {
				// One call's own event: to that call, if it still waits, and to no subscriber.
				if id, err := strconv.ParseUint(string(ev.Request), 10, 64); err == nil {
					c.mu.Lock()
					q := c.progress[id]
					c.mu.Unlock()
					if q != nil {
						q.push(ev)
					}
				}
				return nil
			}
			c.deliver(ev)
		}
		return nil
	}
	id, err := strconv.ParseUint(string(m.ID), 10, 64)
	if err != nil {
		// id null: about the connection, not a call. Usually the connection closes next.
		if m.Error != nil {
			c.mu.Lock()
			c.lastErr = m.Error.Message
			if me := decodeError(m.Error); me.Code == model.CodeResourceExhausted {
				c.refusal = me
			}
			c.mu.Unlock()
		}
		return nil
	}
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- callResult{result: m.Result, err: decodeError(m.Error)}
	}
	return nil
}

// deliver never blocks the reader, which also carries answers: a subscriber whose buffer is
// full is cut off instead.
func (c *Client) deliver(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for sub := range c.subs {
		select {
		case sub.ch <- ev:
		default:
			c.removeSubLocked(sub)
		}
	}
}

// shutdown marks the connection lost (unless already closed) and fails everything waiting.
func (c *Client) shutdown(cause error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		reason := cause.Error()
		if errors.Is(cause, io.EOF) {
			reason = "the runtime closed it"
		}
		if c.lastErr != "" {
			reason += ": " + c.lastErr
		}
		c.err = model.Errorf(model.CodeRuntimeUnreachable, lostHint,
			"lost the connection to the runtime at %s: %s", c.endpoint, reason).WithDetail("endpoint", c.endpoint)
		if c.refusal != nil {
			c.err = c.refusal.WithDetail("endpoint", c.endpoint)
		}
	}
	for id, ch := range c.pending {
		ch <- callResult{err: c.err}
		delete(c.pending, id)
	}
	for sub := range c.subs {
		c.removeSubLocked(sub)
	}
}
