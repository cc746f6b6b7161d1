package api

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/codexhost/codexhost/model"
)

// listenError says why a loopback TCP address could not be listened on, as the caller's
// matter (the port, the address) rather than a bug.
func listenError(addr string, err error) error {
	_, port, _ := net.SplitHostPort(addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return model.Errorf(model.CodeFailedPrecondition,
			fmt.Sprintf("pick another port (--listen 127.0.0.1:0 takes a free one), or stop the process using it (`ss -ltnp 'sport = :%s'` names it)", port),
			"%s is already in use", addr).WithDetail("listen", addr)
	case errors.Is(err, syscall.EACCES):
		return model.Errorf(model.CodeFailedPrecondition, "pick a port above 1023", "no permission to listen on %s", addr).WithDetail("listen", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return model.Errorf(model.CodeInvalidArgument, "give a loopback address of this machine, such as 127.0.0.1:PORT", "%s is not an address of this machine", addr).WithDetail("listen", addr)
	}
	return model.AsError(fmt.Errorf("listen on %s: %w", addr, err))
}
