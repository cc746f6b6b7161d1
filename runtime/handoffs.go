package runtime

import (
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/handoff"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// Wiring of handoffs and their tasks (runtime/handoff): the service opens on the first
// handoff or task call, on the store, the native harness and the thread capability.

func (h *Host) newHandoffs() *handoff.Capability {
	return handoff.NewCapability(handoff.Wiring{
		Home: h.opts.Home, Config: h.config, Threads: h.threads, Environ: h.opts.Environ,
		Store:     func() *store.Store { return h.store },
		Native:    func() *harness.Native { return h.native },
		NativeEnv: func() []string { return h.nativeEnv },
		CodexHome: defaultCodexHome(envLookup(h.opts.Environ)),
		CodexBin: func() string {
			bin, _ := appserver.Locate(h.launch.Search(h.config().CodexBin))
			return bin
		},
		Subscribe: h.Subscribe, Publish: h.events.Publish, Now: h.opts.Now, After: h.opts.TaskAfter, Log: h.opts.Log,
	})
}
