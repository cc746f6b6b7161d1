//go:build !unix

package termbg

import (
	"os"
	"time"
)

// AskDark does not ask where raw reads with a bound are not available.
func AskDark(in, out *os.File, timeout time.Duration) (dark, ok bool) { return false, false }
