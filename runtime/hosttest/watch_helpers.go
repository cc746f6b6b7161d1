package hosttest

import "github.com/codexhost/codexhost/runtime/watch"

// RestartAfter closes the Host, runs downtime (nil: nothing), and opens a new Host on the
// same home, as a runtime restart does. During the downtime no runtime holds the home, so a
// test may change its files, its config and an injected clock.
func (th *Host) RestartAfter(downtime func()) {
	th.T.Helper()
	th.Shutdown()
	if downtime != nil {
		downtime()
	}
	th.open()
}

// WatchEngine is the watch engine of the runtime open now (a new one after each restart), for
// tests that make it evaluate at once after moving an injected clock (Kick) or run one pass
// to its end (Step).
func (th *Host) WatchEngine() *watch.Engine { return th.Watches() }
