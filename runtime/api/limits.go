package api

import (
	"net"
	"sync/atomic"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Defaults of the resource limits of ServerOptions. Before authentication a connection may
// send only a small frame (an auth request is under 200 bytes), so that unauthenticated
// connections cannot make the runtime buffer megabytes each.
const (
	DefaultMaxUnauthLineBytes = 32 << 10
	DefaultMaxConns           = 512
	DefaultMaxUnauthConns     = 64
	DefaultMaxInflight        = 128
)

// limitsDefaults fills the zero limits of opts.
func limitsDefaults(opts *ServerOptions) {
	if opts.MaxUnauthLineBytes <= 0 {
		opts.MaxUnauthLineBytes = DefaultMaxUnauthLineBytes
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.MaxUnauthConns <= 0 {
		opts.MaxUnauthConns = DefaultMaxUnauthConns
	}
	if opts.MaxInflight <= 0 {
		opts.MaxInflight = DefaultMaxInflight
	}
}

// admit decides, under s.mu, whether a new connection may stay. Over MaxConns it is refused;
// over MaxUnauthConns the oldest connection still unauthenticated is closed to make room, so a
// flood of idle connections cannot keep a real client, which authenticates at once, out.
func (s *Server) admitLocked() (refuse bool, evict *serverConn) {
	if len(s.conns) >= s.opts.MaxConns {
		return true, nil
	}
	unauth := 0
	for c := range s.conns {
		if c.authed.Load() {
			continue
		}
		unauth++
		if evict == nil || c.accepted.Before(evict.accepted) {
			evict = c
		}
	}
	if unauth < s.opts.MaxUnauthConns {
		evict = nil
	}
	return false, evict
}

// refuseConn answers a connection over the cap with one error line and closes it.
func (s *Server) refuseConn(nc net.Conn, endpoint string) {
	s.logf("runtime api: refusing a connection on %s: %d connections are open", endpoint, s.opts.MaxConns)
	_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = nc.Write(encodeError(nil, rpcServerError, model.Errorf(model.CodeResourceExhausted,
		"close connections you no longer use, or retry later",
		"the runtime serves at most %d connections at once", s.opts.MaxConns)))
	_ = nc.Close()
}

// inflightLimit is how many requests c may have running at once.
func (c *serverConn) inflightLimit() int {
	if f := c.s.opts.InflightLimit; f != nil {
		if n := f(c.caller); n != 0 {
			return n
		}
	}
	return c.s.opts.MaxInflight
}

// startRequest counts one more request in flight, or answers it with RESOURCE_EXHAUSTED when
// the connection already has its limit running. A negative limit is no limit.
func (c *serverConn) startRequest(req *wireRequest) bool {
	limit := c.inflightLimit()
	if n := c.inflight.Add(1); limit > 0 && n > int64(limit) {
		c.inflight.Add(-1)
		c.write(encodeError(req.ID, rpcServerError, model.Errorf(model.CodeResourceExhausted,
			"wait for answers before sending more requests on this connection",
			"%d requests are already in flight on this connection (the limit)", limit).
			WithDetail("limit", limit)))
		return false
	}
	return true
}

// lineLimit is the longest request line c may send now.
func (c *serverConn) lineLimit() int {
	if c.authed.Load() {
		return c.s.opts.MaxLineBytes
	}
	return min(c.s.opts.MaxUnauthLineBytes, c.s.opts.MaxLineBytes)
}

// connLimits is the part of serverConn the limits need.
type connLimits struct {
	accepted time.Time
	authed   atomic.Bool
	inflight atomic.Int64
}
