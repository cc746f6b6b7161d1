package api

import (
	"net"

	"github.com/codexhost/codexhost/internal/peercred"
)

// Peer is what the server knows of a connection's other end, for a handler that decides
// identity by more than the token (PeerAuthenticator).
type Peer struct {
	// Unix is true on the home's Unix socket, where the kernel vouches for the peer.
	Unix bool
	conn net.Conn
}

// Cred is the peer's process and user: SO_PEERCRED on the Unix socket, the socket's owner on
// loopback TCP. On TCP the pid is looked for among candidates only (peercred.TCP) and is 0
// when none of them holds the connection.
func (p Peer) Cred(candidates func() []int) (peercred.Cred, error) {
	switch c := p.conn.(type) {
	case *net.UnixConn:
		return peercred.Unix(c)
	case *net.TCPConn:
		local, _ := c.LocalAddr().(*net.TCPAddr)
		remote, _ := c.RemoteAddr().(*net.TCPAddr)
		if local == nil || remote == nil {
			return peercred.Cred{}, peercred.ErrUnsupported
		}
		var pids []int
		if candidates != nil {
			pids = candidates()
		}
		return peercred.TCP(local, remote, pids)
	}
	return peercred.Cred{}, peercred.ErrUnsupported
}

// PeerAuthenticator is a Handler that takes the peer into account. The server calls it, when
// the handler has it, instead of Authenticate, also with an empty token (the home's operator
// authenticates on the Unix socket by who it is). A refusal's error is the client's answer.
type PeerAuthenticator interface {
	AuthenticatePeer(token string, peer Peer) (Caller, error)
}

// String names the caller in logs: its kind, and its client or thread.
func (c Caller) String() string {
	switch {
	case c.Client != "":
		return c.Kind + ":" + c.Client
	case c.Thread != "":
		return c.Kind + ":thread:" + c.Thread
	case c.Unbound:
		return c.Kind + ":unbound"
	}
	return c.Kind
}
