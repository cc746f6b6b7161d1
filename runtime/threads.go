package runtime

import (
	"sort"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/runtime/watch"
)

// Wiring of the thread capability (runtime/threads): made with the host, so that its routes
// are in the table from the start, and started on the store and the harnesses once the host
// holds its home.

func (h *Host) newThreads() *threads.Service {
	return threads.New(threads.Options{
		Supervised: h.supervise,
		Watch:      func() *watch.Engine { return h.watch },
		Subscribe:  h.Subscribe,
		Config:     h.config,
		OnCancel:   func(id model.ThreadID) { h.markers.AuthorCancelled(id) },
		Now:        h.opts.Now,
		Log:        h.opts.Log,
	})
}

// Threads is the host's thread capability (for in-process callers such as tests).
func (h *Host) Threads() *threads.Service { return h.threads }

// Native is the host's Codex harness, running once the host holds its home (for in-process
// callers such as tests).
func (h *Host) Native() *harness.Native { return h.native }

// harnessRegistry is the host's harnesses as the thread capability and the marker wiring see
// them.
type harnessRegistry struct{ h *Host }

func (r harnessRegistry) Harness(name string) (harness.Harness, bool) {
	hs, ok := r.h.harnesses[name]
	return hs, ok
}

func (r harnessRegistry) Native() *harness.Native { return r.h.native }

// Names lists the registered harnesses, native first, then by name.
func (r harnessRegistry) Names() []string {
	names := make([]string, 0, len(r.h.harnesses))
	for name := range r.h.harnesses {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if (a == model.NativeHarness) != (b == model.NativeHarness) {
			return a == model.NativeHarness
		}
		return a < b
	})
	return names
}
