//go:build unix

package termbg

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// AskDark writes Query to out and reads the answer from in, in raw mode, for at most timeout.
// ok is false when the terminal did not say its background in time.
func AskDark(in, out *os.File, timeout time.Duration) (dark, ok bool) {
	fd := int(in.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return false, false
	}
	defer term.Restore(fd, old)
	if _, err := out.WriteString(Query); err != nil {
		return false, false
	}
	deadline := time.Now().Add(timeout)
	var got []byte
	buf := make([]byte, 256)
	for len(got) < 4096 {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		m, err := unix.Read(fd, buf)
		if err != nil || m <= 0 {
			break
		}
		got = append(got, buf[:m]...)
		if complete(string(got)) {
			break
		}
	}
	return parseAnswer(string(got))
}
