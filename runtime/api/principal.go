package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/codexhost/codexhost/model"
)

// Defaults of the per-principal limits of ServerOptions. A principal is who a connection
// authenticated as (capKey); its connections and the request bytes it has in flight are
// capped, so one client cannot take the connections or the memory every other one needs.
const (
	DefaultMaxConnsPerPrincipal = 64
	DefaultMaxBytesInFlight     = 16 << 20
)

// PrincipalLimits are one principal's allowances: zero fields take the server's defaults,
// negative ones are unlimited. Reserved principals (the operator, the runtime's own agents)
// do not count toward MaxConns, so clients filling it cannot lock them out.
type PrincipalLimits struct {
	Conns         int
	BytesInFlight int64
	Reserved      bool
}

// capKey names the account whose allowances a caller's connections share: a client's, or
// an agent's thread (each thread's agent has its own, so one agent cannot use up another's).
func capKey(c Caller) string {
	switch {
	case c.Thread != "":
		return c.Kind + ":thread:" + c.Thread
	case c.Unbound:
		return c.Kind + ":unbound"
	}
	return c.Kind + ":" + c.Client
}

// principal is the shared account of one capKey. conns is guarded by Server.mu; limits do
// not change once it is made.
type principal struct {
	key      string
	limits   PrincipalLimits
	conns    int
	inflight atomic.Int64 // bytes of request lines being read or handled
}

func (s *Server) principalLimits(c Caller) PrincipalLimits {
	var l PrincipalLimits
	if f := s.opts.PrincipalLimits; f != nil {
		l = f(c)
	}
	if l.Conns == 0 {
		l.Conns = s.opts.MaxConnsPerPrincipal
	}
	if l.BytesInFlight == 0 {
		l.BytesInFlight = s.opts.MaxBytesInFlight
	}
	return l
}

// onAuthed counts c toward its principal once it authenticated, or refuses it with
// RESOURCE_EXHAUSTED naming the cap it is over: the principal's own, or MaxConns for
// principals that are not reserved.
func (s *Server) onAuthed(c *serverConn) *model.Error {
	key, limits := capKey(c.caller), s.principalLimits(c.caller)
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.principals[key]
	if p == nil { // limits are set once: connections of the principal read them unlocked
		p = &principal{key: key, limits: limits}
		s.principals[key] = p
	}
	limits = p.limits
	if limits.Conns > 0 && p.conns >= limits.Conns {
		s.logf("runtime api: refusing a connection of %s on %s: it has %d open (its cap)", c.caller, c.endpoint, p.conns)
		return model.Errorf(model.CodeResourceExhausted, "close connections this client no longer uses, or retry later",
			"%s already has %d connections open: the cap per client is %d", c.caller, p.conns, limits.Conns).
			WithDetail("limit", limits.Conns)
	}
	if !limits.Reserved && s.ordinary >= s.opts.MaxConns {
		s.logf("runtime api: refusing a connection of %s on %s: %d client connections are open", c.caller, c.endpoint, s.ordinary)
		return model.Errorf(model.CodeResourceExhausted, "close connections you no longer use, or retry later",
			"the runtime serves at most %d client connections at once", s.opts.MaxConns).WithDetail("limit", s.opts.MaxConns)
	}
	p.conns++
	if !limits.Reserved {
		s.ordinary++
	}
	c.principal = p
	return nil
}

// releasePrincipalLocked uncounts c from its principal; under s.mu, idempotent.
func (s *Server) releasePrincipalLocked(c *serverConn) {
	p := c.principal
	if p == nil {
		return
	}
	p.release(c.takeHeld())
	c.principal = nil
	p.conns--
	if !p.limits.Reserved {
		s.ordinary--
	}
	if p.conns == 0 && p.inflight.Load() == 0 && s.principals[p.key] == p {
		delete(s.principals, p.key)
	}
}

// reserve takes n bytes of the principal's in-flight allowance; false when that would pass
// it. A connection not authenticated yet has no principal: its lines are small already.
func (p *principal) reserve(n int) bool {
	if p == nil || n <= 0 {
		return true
	}
	limit := p.limits.BytesInFlight
	for {
		cur := p.inflight.Load()
		if limit > 0 && cur+int64(n) > limit {
			return false
		}
		if p.inflight.CompareAndSwap(cur, cur+int64(n)) {
			return true
		}
	}
}

func (p *principal) release(n int64) {
	if p != nil && n > 0 {
		p.inflight.Add(-n)
	}
}

// errOverBudget: the line was read to its end but not kept, its principal having too many
// bytes in flight.
var errOverBudget = errors.New("over the bytes in flight")

// scratchKeep is the largest line buffer a connection keeps between lines; larger ones are
// dropped, so idle connections hold little memory.
const scratchKeep = 128 << 10

// readRequest reads the next line like readLine, counting its bytes toward c's principal as
// they are buffered; c.held is what the line holds until released. Over the allowance the
// rest of the line is read and dropped, not buffered, and errOverBudget returned with the
// line's beginning (for its id).
func (c *serverConn) readRequest(r *bufio.Reader, max int, scratch *[]byte) ([]byte, error) {
	p := c.principal
	if p == nil { // not authenticated yet: max is small, and there is no one to count it for
		return readLine(r, max, scratch)
	}
	chunk, err := r.ReadSlice('\n')
	if err == nil || !errors.Is(err, bufio.ErrBufferFull) {
		line := bytes.TrimSuffix(chunk, []byte("\n"))
		if len(line) > max {
			return nil, errLineTooLong
		}
		if !p.reserve(len(line)) {
			return line, errOverBudget
		}
		c.held = int64(len(line))
		return line, err
	}
	if len(chunk) > max {
		return nil, errLineTooLong // a full buffer without a newline: no need to copy it
	}
	buf := append((*scratch)[:0], chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(buf) > max {
			c.releaseHeld()
			return nil, errLineTooLong
		}
		if !p.reserve(len(chunk)) {
			c.releaseHeld()
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if cap(buf) <= scratchKeep {
				*scratch = buf
			}
			return buf[:min(len(buf), 4<<10)], errOverBudget
		}
		c.held += int64(len(chunk))
		chunk, err = r.ReadSlice('\n')
		buf = append(buf, chunk...)
	}
	if cap(buf) <= scratchKeep {
		*scratch = buf
	}
	if !p.reserve(len(chunk)) {
		c.releaseHeld()
		return buf[:min(len(buf), 4<<10)], errOverBudget
	}
	c.held += int64(len(chunk))
	line := bytes.TrimSuffix(buf, []byte("\n"))
	if len(line) > max {
		c.releaseHeld()
		return nil, errLineTooLong
	}
	return line, err
}

// takeHeld hands the bytes the current line holds to the request that runs it.
func (c *serverConn) takeHeld() int64 {
	n := c.held
	c.held = 0
	return n
}

// releaseHeld gives back what the current line held, when no request took it.
func (c *serverConn) releaseHeld() { c.principal.release(c.takeHeld()) }

// refuseOverBudget answers a line dropped by readRequest.
func (c *serverConn) refuseOverBudget(prefix []byte) {
	p := c.principal
	c.s.logf("runtime api: refusing a request of %s on %s: %d bytes of its requests are in flight", c.caller, c.endpoint, p.inflight.Load())
	c.write(encodeError(leadingID(prefix), rpcServerError, model.Errorf(model.CodeResourceExhausted,
		"wait for answers to large requests before sending more, or send smaller ones",
		"%s has too many request bytes in flight: the cap per client is %d bytes", c.caller, p.limits.BytesInFlight).
		WithDetail("limit", p.limits.BytesInFlight)))
}

// leadingID is the id of a request from its line's beginning, when the id comes before any
// member that does not fit; nil otherwise.
func leadingID(prefix []byte) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil
		}
		if k == "id" {
			if validID(v) {
				return v
			}
			return nil
		}
	}
	return nil
}
