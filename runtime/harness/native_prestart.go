package harness

import (
	"context"
	"time"
)

// Prestart starts the App Server in the background, for a runtime of one command that
// needs it: its start (hundreds of ms) then overlaps the rest of the runtime's start and the
// command's connection, instead of following them. The command's first call joins it. A
// failure is not reported here; that call meets it again. stop ends the start, at most
// timeout long, and waits for it.
func (n *Native) Prestart(timeout time.Duration) (stop func()) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		_, _ = n.Client(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
