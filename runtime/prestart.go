package runtime

import (
	"context"
	"time"
)

// prestartTimeout bounds the App Server start begun with the runtime (Options.AppServer).
const prestartTimeout = time.Minute

// prestartAppServer starts the native App Server in the background as the runtime starts,
// for a runtime of one command that needs it: its start (hundreds of ms) then overlaps the
// rest of the runtime's start and the command's connection, instead of following them. The
// command's first call joins it. A failure is not reported here; that call meets it again.
func (h *Host) prestartAppServer() {
	if !h.opts.AppServer || h.native == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), prestartTimeout)
	done := make(chan struct{})
	h.stopPrestart = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		defer cancel()
		_, _ = h.native.Client(ctx)
	}()
}
