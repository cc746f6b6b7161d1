// Package termbg asks a terminal for its background colour once, with a short bound, for the
// terminal app's automatic theme. termenv asks the same question but waits five seconds for a
// terminal that never answers; this waits Timeout.
package termbg

import (
	"strconv"
	"strings"
	"time"
)

// Timeout is how long the terminal has to answer.
const Timeout = 100 * time.Millisecond

// Query is what is written: the background colour (OSC 11), then the cursor position (DSR),
// which every terminal answers, so an answer to the second without one to the first means
// the terminal does not know OSC 11 and there is no need to wait further.
const Query = "\x1b]11;?\x1b\\\x1b[6n"

// parseAnswer reads the OSC 11 answer out of what the terminal sent back:
// `ESC]11;rgb:RRRR/GGGG/BBBB` ended by BEL or ST. ok is false when there is none.
func parseAnswer(b string) (dark, ok bool) {
	i := strings.Index(b, "\x1b]11;rgb:")
	if i < 0 {
		return false, false
	}
	rest := b[i+len("\x1b]11;rgb:"):]
	if j := strings.IndexAny(rest, "\x07\x1b"); j >= 0 {
		rest = rest[:j]
	} else {
		return false, false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return false, false
	}
	var lum float64
	weights := [3]float64{0.2126, 0.7152, 0.0722}
	for k, p := range parts {
		if len(p) == 0 || len(p) > 4 {
			return false, false
		}
		v, err := strconv.ParseUint(p, 16, 16)
		if err != nil {
			return false, false
		}
		max := float64(uint64(1)<<(4*len(p)) - 1)
		lum += weights[k] * float64(v) / max
	}
	return lum < 0.5, true
}

// complete reports whether the answer to the cursor query (`ESC[row;colR`) has arrived,
// which ends the exchange.
func complete(b string) bool {
	i := strings.LastIndex(b, "\x1b[")
	return i >= 0 && strings.HasSuffix(b, "R") && !strings.Contains(b[i:], "]")
}
