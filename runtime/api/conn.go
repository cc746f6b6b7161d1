package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
)

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
	token      string // a named client's, re-checked at each request and event (revoked)
	connLimits        // authed, the time of accept, requests in flight

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
		line, err := c.readRequest(br, max, &scratch)
		if errors.Is(err, errOverBudget) {
			c.refuseOverBudget(line)
			continue
		}
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
		c.releaseHeld() // the line ran no request that took its bytes
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
	if err := c.revoked(); err != nil {
		c.write(encodeError(req.ID, rpcServerError, err))
		return false
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
	caller, err := c.authenticate(p.Token)
	if err != nil {
		c.s.logf("runtime api: rejected a connection's authentication on %s", c.endpoint)
		c.s.throttleAuthFailure(c.ctx)
		c.write(encodeError(req.ID, rpcServerError, model.AsError(err)))
		return false
	}
	c.caller = caller
	if caller.Kind == CallerClient || caller.Kind == CallerNode {
		c.token = p.Token // "" for the operator, whom the socket's peer names
	}
	if err := c.s.onAuthed(c); err != nil {
		c.write(encodeError(req.ID, rpcServerError, err))
		return false
	}
	c.authed.Store(true)
	_ = c.nc.SetReadDeadline(time.Time{})
	c.writeResult(req.ID, "auth", AuthResult{Caller: caller, Version: c.s.opts.Version})
	return true
}

// revoked re-checks a named client's token, so that removing or replacing its entry in
// config.toml ends what its open connections may do, not only its new ones: without it a
// revoked client kept a connection acting for it for as long as it liked.
func (c *serverConn) revoked() *model.Error {
	if c.token == "" {
		return nil
	}
	if caller, ok := c.s.h.Authenticate(c.token); ok && caller == c.caller {
		return nil
	}
	c.s.logf("runtime api: closing a connection on %s of client %s: its token is no longer accepted", c.endpoint, c.caller.Client)
	return model.Errorf(model.CodePermissionDenied, "connect again with the client's current token (`codexhost client add NAME` makes one)",
		"the token of client %q is no longer accepted: its entry in config.toml was removed or replaced", c.caller.Client).
		WithDetail("client", c.caller.Client)
}

// authenticate asks the handler who the token (and, when it can tell, the peer) is.
func (c *serverConn) authenticate(token string) (Caller, error) {
	if pa, ok := c.s.h.(PeerAuthenticator); ok {
		_, unix := c.nc.(*net.UnixConn)
		return pa.AuthenticatePeer(token, Peer{Unix: unix, conn: c.nc})
	}
	if token != "" {
		if caller, ok := c.s.h.Authenticate(token); ok {
			return caller, nil
		}
	}
	return Caller{}, model.Errorf(model.CodePermissionDenied,
		"use the token the runtime gave this process (CODEXHOST_RUNTIME_TOKEN) or a client token configured in the runtime's config.toml",
		"the runtime rejected the token")
}

func (s *Server) authorize(caller Caller, method string) error { return s.h.Authorize(caller, method) }

// goRequest runs one request in its own goroutine so a slow method (thread.wait) does not
// hold up the others on the connection.
func (c *serverConn) goRequest(req *wireRequest, fn func(*wireRequest) (any, error)) {
	if !c.startRequest(req) {
		return
	}
	held, p := c.takeHeld(), c.principal
	c.s.wg.Add(1) // the read loop is counted, so the counter cannot be zero here
	go func() {
		defer c.s.wg.Done()
		defer c.inflight.Add(-1)
		defer p.release(held)
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
			if c.revoked() != nil {
				c.close()
				return
			}
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
