package hosttest

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
