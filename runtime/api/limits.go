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
	DefaultUnixReserve        = 64
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
	if opts.UnixReserve <= 0 {
		opts.UnixReserve = DefaultUnixReserve
	}
	if opts.UnauthGrace == 0 {
		opts.UnauthGrace = DefaultUnauthGrace
	}
	if opts.MaxConnsPerPrincipal == 0 {
		opts.MaxConnsPerPrincipal = DefaultMaxConnsPerPrincipal
	}
	if opts.MaxBytesInFlight == 0 {
		opts.MaxBytesInFlight = DefaultMaxBytesInFlight
	}
}

// DefaultUnauthGrace is how long a new connection may take to authenticate before a newer
// one, over MaxUnauthConns, may close it. A real client authenticates within milliseconds.
const DefaultUnauthGrace = time.Second

// unauthBurst times MaxUnauthConns is the hard cap of unauthenticated connections on a
// transport: up to it a connection still within UnauthGrace is never closed for a newer one.
const unauthBurst = 4

// admitLocked decides, under s.mu, whether a new connection may stay (refuse > 0 is the cap
// it is over), never making it wait:
// the accept loop takes the next one at once, so a real client is served however many idle
// connections came before it. A TCP connection is refused once MaxConns are open, a Unix
// socket one only past UnixReserve more. Each transport has its own unauthenticated slots, so
// a TCP flood never closes or delays the Unix socket's. Over MaxUnauthConns the oldest
// unauthenticated connection of the transport is closed to make room once it had UnauthGrace
// to authenticate, so a burst of agents connecting at once is served, not made to close each
// other; over unauthBurst times that, the oldest is closed at once, so a flood cannot hold
// the slots.
func (s *Server) admitLocked(now time.Time, unix bool) (refuse int, evict *serverConn) {
	limit := s.opts.MaxConns
	if unix {
		limit += s.opts.UnixReserve
	}
	if len(s.conns) >= limit {
		return limit, nil
	}
	unauth, oldest := 0, (*serverConn)(nil)
	for c := range s.conns {
		if c.unix != unix || c.authed.Load() {
			continue
		}
		unauth++
		if oldest == nil || c.accepted.Before(oldest.accepted) {
			oldest = c
		}
	}
	switch {
	case unauth < s.opts.MaxUnauthConns:
		return 0, nil
	case unauth >= unauthBurst*s.opts.MaxUnauthConns, now.Sub(oldest.accepted) >= s.opts.UnauthGrace:
		return 0, oldest
	}
	return 0, nil
}

// refuseConn answers a connection over the cap with one error line and closes it.
func (s *Server) refuseConn(nc net.Conn, endpoint string, limit int) {
	s.logf("runtime api: refusing a connection on %s: %d connections are open (the cap)", endpoint, limit)
	_ = nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = nc.Write(encodeError(nil, rpcServerError, model.Errorf(model.CodeResourceExhausted,
		"close connections you no longer use, or retry later",
		"the runtime serves at most %d connections at once on %s", limit, endpoint).WithDetail("limit", limit)))
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
	accepted  time.Time
	unix      bool // on the Unix socket: its own unauthenticated pool and reserve
	authed    atomic.Bool
	inflight  atomic.Int64
	principal *principal // set once authenticated (principal.go)
	held      int64      // bytes of the current line counted toward principal
}
