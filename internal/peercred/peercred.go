// Package peercred tells who is on the other end of a local connection: the process and user
// behind a Unix socket (SO_PEERCRED) or a loopback TCP connection (the socket's owner in
// /proc), and whether that process descends from a given one. The runtime uses it so that
// no token decides who the operator is and every process below the runtime is an agent.
package peercred

import "errors"

// ErrUnsupported is returned where the platform offers no way to tell.
var ErrUnsupported = errors.New("peercred: not supported on this platform")

// Cred is what the kernel says about a peer.
type Cred struct {
	Pid int
	Uid int
}
