package model

import "time"

// ClampMillis converts a count of milliseconds given by a caller to a duration of at most
// max. It never overflows: a huge count is max, where time.Duration(ms)*time.Millisecond would
// wrap around to a negative duration and end a wait at once. A negative count is returned as
// is (negative) for the caller to refuse.
func ClampMillis(ms int64, max time.Duration) time.Duration {
	if ms > int64(max/time.Millisecond) {
		return max
	}
	return time.Duration(ms) * time.Millisecond
}
