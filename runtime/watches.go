package runtime

import (
	"context"
	"path/filepath"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/watch"
)

// startWatches opens the watch engine on the store and runs it until the host closes. It
// reads and notifies threads as thread read and thread send do (runtime/threads).
func (h *Host) startWatches() error {
	engine, err := watch.Open(watch.Options{
		Store: h.store,
		Read:  h.watchRead,
		Send:  h.threads.WatchSend,
		Now:   h.opts.Now,
		Log:   h.opts.Log,
		Fault: faultPoint,
		// Marker reports ride this path: their text is a 0600 file here (runtime/markers.go).
		MessageDir: filepath.Join(h.opts.Home, "messages"),
		Usage:      h.threads.UsageOf,
		OnClientEvent: func(client string) {
			h.events.Publish(api.Event{Type: api.EventClientLog, Thread: client})
		},
		OnChange: func(w model.Watch) {
			h.events.Publish(api.Event{Type: api.EventWatchState, Thread: string(w.Thread), Status: w.State})
		},
	})
	if err != nil {
		return err
	}
	h.watch = engine
	ctx, cancel := context.WithCancel(context.Background())
	h.stopWatch = cancel
	go engine.Run(ctx)
	return nil
}

// Watches is the host's watch engine, for the capability's tests and tools that drive it (Kick, Step).
func (h *Host) Watches() *watch.Engine { return h.watch }

// watchRead is the engine's view of a thread, with the approval of it that waits, if any.
func (h *Host) watchRead(ctx context.Context, id model.ThreadID) (watch.ThreadState, error) {
	st, err := h.threads.WatchRead(ctx, id)
	if err == nil {
		st.Approval = h.approvals.PendingOf(string(id))
	}
	return st, err
}
