package runtime

import (
	"context"
	"os"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/approvals"
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
	info := func() api.RuntimeInfo {
		return api.RuntimeInfo{Version: h.opts.Version, Home: h.opts.Home, Endpoints: h.Endpoints(), Pid: os.Getpid()}
	}
	// The native App Server starts on what codex.install installs, and the catalog's hosts
	// that failed for want of codex retry.
	codex := codexsetup.Setup{Home: h.opts.Home, Version: h.opts.Version, Lookup: envLookup(h.opts.Environ),
		CodexBin: func() string { return h.config().CodexBin }, Start: nativeOfHost{h}.start,
		Installed: h.fleet.RetryUnavailable, Now: h.opts.Now, Logf: h.logf}
	return route.NewTable(h.live.Current,
		follow.Routes(info, h.live.Fresh, h.Handle), // events.subscribe, runtime.forward, runtime.info
		h.threads.Routes(),                          // harness.*, delegate.start, thread.*, client.events, usage.summary
		h.markers.Routes(),                          // thread.markers, markers.prune (runtime/marker)
		h.fleet.Routes(),                            // catalog.hosts, catalog.sessions, catalog.transcript, catalog.archive
		h.supervise.Routes(),                        // catalog.continue
		compat.Routes(h.fleet.Catalog, h.supervise), // compat.*
		h.node.Routes(),                             // node.describe, node.invoke
		h.handoffs.Routes(),                         // handoff.*, task.*, skill.* (runtime/handoff)
		backup.Routes(func() *store.Store { return h.store }, h.opts.Now), // store.backup
		codex.Routes(), // codex.status, codex.install
		approvals.Routes(h.approvals, approvalAccess{h}), // approval.*
	)
}

// approvalAccess decides who sees and answers an approval by the thread the person knows:
// Codex asks a branch's approvals under its canonical thread, which no harness of this
// runtime lists when the branch runs on an extra Codex home (THREAD_NOT_FOUND at answer).
type approvalAccess struct{ h *Host }

func (a approvalAccess) VisibleTo(caller api.Caller, grant config.Grant) func(model.ThreadID) bool {
	visible := a.h.threads.VisibleTo(caller, grant)
	if visible == nil {
		return nil
	}
	return func(id model.ThreadID) bool { return visible(a.h.supervise.SupervisedOf(id)) }
}

func (a approvalAccess) TouchPolicy(ctx context.Context, env route.Env, thread string) (*route.Policy, error) {
	return a.h.threads.TouchPolicy(ctx, env, string(a.h.supervise.SupervisedOf(model.ThreadID(thread))))
}
