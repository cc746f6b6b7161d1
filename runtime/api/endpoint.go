package api

import (
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/codexhost/codexhost/model"
)

// Endpoint forms, as found in CODEXHOST_RUNTIME_ENDPOINT.
const (
	unixScheme = "unix://"
	tcpScheme  = "tcp://"

	endpointHint = "use unix:///absolute/path/to/socket or tcp://127.0.0.1:PORT"
)

// maxUnixPath is the longest socket path bind/connect accept here (sun_path less its NUL):
// 107 bytes on Linux, 103 on macOS.
var maxUnixPath = len(syscall.RawSockaddrUnix{}.Path) - 1

// UnixEndpoint is the endpoint of the socket at path (absolute). The path is taken literally,
// not URL-escaped, so ParseEndpoint(UnixEndpoint(p)) gives p back.
func UnixEndpoint(path string) string { return unixScheme + path }

// TCPEndpoint is the endpoint of a TCP address HOST:PORT.
func TCPEndpoint(addr string) string { return tcpScheme + addr }

// ParseEndpoint splits an endpoint into the network and address net.Dial takes:
// unix:///abs/path → ("unix", "/abs/path"); tcp://HOST:PORT → ("tcp", "HOST:PORT").
// Errors are INVALID_ARGUMENT and name the accepted forms.
func ParseEndpoint(s string) (network, address string, err error) {
	switch {
	case strings.HasPrefix(s, unixScheme):
		p := s[len(unixScheme):]
		if !strings.HasPrefix(p, "/") {
			return "", "", badEndpoint(s, "the socket path must be absolute (three slashes after unix:)")
		}
		if strings.ContainsRune(p, 0) {
			return "", "", badEndpoint(s, "the socket path contains a NUL byte")
		}
		return "unix", p, nil
	case strings.HasPrefix(s, tcpScheme):
		hp := s[len(tcpScheme):]
		if strings.ContainsAny(hp, "/?#") {
			return "", "", badEndpoint(s, "a tcp endpoint is only HOST:PORT, without a path")
		}
		host, port, err := net.SplitHostPort(hp)
		if err != nil {
			return "", "", badEndpoint(s, "want HOST:PORT after tcp://")
		}
		if host == "" {
			return "", "", badEndpoint(s, "the host is missing")
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", "", badEndpoint(s, "the port must be a number from 1 to 65535")
		}
		return "tcp", hp, nil
	case s == "":
		return "", "", badEndpoint(s, "it is empty")
	default:
		return "", "", badEndpoint(s, "unknown scheme")
	}
}

func badEndpoint(s, why string) *model.Error {
	return model.Errorf(model.CodeInvalidArgument, endpointHint,
		"invalid runtime endpoint %q: %s; the accepted forms are unix:///absolute/path/to/socket and tcp://HOST:PORT", s, why).
		WithDetail("endpoint", s)
}

// loopbackListenAddr checks that addr (HOST:PORT, port 0 allowed) is a loopback address and
// returns it with "localhost" spelled 127.0.0.1. Anything else is refused: tokens cross the
// TCP listener in clear text, so it must not be reachable from another machine.
func loopbackListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", model.Errorf(model.CodeInvalidArgument, "use 127.0.0.1:PORT",
			"invalid listen address %q: want HOST:PORT", addr).WithDetail("address", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", model.Errorf(model.CodeInvalidArgument, "use 127.0.0.1:PORT",
			"invalid listen address %q: the port must be a number from 0 to 65535", addr).WithDetail("address", addr)
	}
	if host == "localhost" {
		// Not resolved: a hosts file could map it anywhere.
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	ip = ip.Unmap()
	if err != nil || !ip.IsLoopback() || ip.Zone() != "" {
		return "", model.Errorf(model.CodeInvalidArgument,
			"listen on 127.0.0.1:PORT (or [::1]:PORT); to reach it from another machine, tunnel it, for example with `ssh -L PORT:127.0.0.1:PORT HOST`",
			"refusing to listen on %q: only loopback addresses are allowed, because tokens travel in clear text over TCP", addr).
			WithDetail("address", addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}
