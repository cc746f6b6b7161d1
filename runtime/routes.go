package runtime

import (
	"context"

	"github.com/codexhost/codexhost/runtime/approvals"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/backup"
	"github.com/codexhost/codexhost/runtime/codexsetup"
	"github.com/codexhost/codexhost/runtime/compat"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/follow"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/store"
)

// newRoutes builds the routing table: every runtime API method, once, with its policy. Each
// capability registers its own group; the root registers none (routes_origin_test.go).
func (h *Host) newRoutes() *route.Table {
	return route.NewTable(h.currentConfig,
		follow.Routes(h.runtimeInfo, h.freshConfig, h.Handle), // events.subscribe, runtime.forward, runtime.info (runtime/follow)
		h.threads.Routes(),                          // harness.list, delegate.start, thread.*, client.events (runtime/threads)
		h.markerRoutes(),                            // thread.markers, markers.prune (runtime/markers.go)
		h.fleet.Routes(),                            // catalog.hosts, catalog.sessions, catalog.transcript, catalog.archive (runtime/fleet)
		h.supervise.Routes(),                        // catalog.continue (runtime/supervise)
		compat.Routes(h.fleet.Catalog, h.supervise), // compat.* (runtime/compat)
		h.node.Routes(),                             // node.describe, node.invoke (runtime/nodeserve)
		h.handoffRoutes(),                           // handoff.*, task.*, skill.* (runtime/handoffs.go)
		backup.Routes(func() *store.Store { return h.store }, h.opts.Now), // store.backup (runtime/backup)
		h.codexSetup().Routes(),                  // codex.status, codex.install (runtime/codexsetup)
		approvals.Routes(h.approvals, h.threads), // approval.* (runtime/approvals)
	)
}

// currentConfig rereads config.toml when it changed (a stat otherwise), so grants and
// switches take effect on the next call without a restart.
func (h *Host) currentConfig() *config.Config {
	if err := h.reloadConfig(); err != nil {
		h.logf("config reload: %v", err)
	}
	return h.config()
}

// freshConfig is currentConfig failing when config.toml cannot be read.
func (h *Host) freshConfig() (*config.Config, error) {
	if err := h.reloadConfig(); err != nil {
		return nil, err
	}
	return h.config(), nil
}

// codexSetup is the Codex setup of the runtime's machine: the native App Server starts on
// what it installs, and the catalog's hosts that failed for want of codex retry.
func (h *Host) codexSetup() codexsetup.Setup {
	return codexsetup.Setup{Home: h.opts.Home, Version: h.opts.Version, Lookup: envLookup(h.opts.Environ),
		CodexBin: func() string { return h.config().CodexBin },
		Start: func(ctx context.Context) error {
			_, err := nativeOfHost{h}.Client(ctx)
			return err
		},
		Installed: h.fleet.RetryUnavailable, Now: h.opts.Now, Logf: h.logf}
}

// codexSearch is where this runtime's App Servers look for codex.
func (h *Host) codexSearch(configured string, lookup func(string) string) appserver.Search {
	return codexsetup.Search(h.opts.Home, h.opts.Version, configured, lookup)
}
