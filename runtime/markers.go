package runtime

import (
	"github.com/codexhost/codexhost/runtime/marker"
)

// Wiring of marker blocks (runtime/marker): made with the host, so that its routes are in the
// table from the start, and started on the store, the harnesses and the watch engine's
// delivery path once the host holds its home.

func (h *Host) newMarkers() *marker.Service {
	return marker.NewService(marker.ServiceOptions{Home: h.opts.Home, Threads: h.threads, Config: h.config,
		Now: h.opts.Now, Log: h.opts.Log, Fault: faultPoint})
}

// startMarkers opens the marker engine and resumes the runs the last runtime left.
func (h *Host) startMarkers() error {
	return h.markers.Start(marker.Deps{Store: h.store, Harnesses: h.harnesses, Watch: h.watch})
}

// Markers is the host's marker capability (for in-process callers such as tests).
func (h *Host) Markers() *marker.Service { return h.markers }
