package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/approvals"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/auth"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/fleet"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/nodeserve"
	"github.com/codexhost/codexhost/runtime/supervise"
	"github.com/codexhost/codexhost/runtime/threads"
	"github.com/codexhost/codexhost/runtime/watch"
)

// wire makes the capabilities, each with what it reads and reports to, so that their routes
// are in the table from the start; each starts on the store and the harnesses once the host
// holds its home (takeStore).
func (h *Host) wire() {
	o := h.opts
	h.auth = &auth.Authenticator{RuntimeToken: h.runtimeToken, Agents: h.agents, Config: h.live.Current}
	h.node = nodeserve.New(nodeserve.Options{Native: nativeOfHost{h}, Config: h.config, Lookup: envLookup(o.Environ),
		Home: o.Home, Version: o.Version, Now: o.Now})
	h.supervise = supervise.New(supervise.Options{Record: h.recordEvent, Publish: h.events.Publish, Usage: h.recordUsage,
		UsageOf:  func(id model.ThreadID) *model.Usage { return h.threads.UsageOf(id) },
		Decorate: func(info *model.ThreadInfo) { h.threads.Decorate(info) }, Now: o.Now, Log: o.Log})
	h.threads = threads.New(threads.Options{Supervised: h.supervise, Watch: func() *watch.Engine { return h.watch },
		Subscribe: h.Subscribe, Publish: h.events.Publish, Config: h.config, OnCancel: func(id model.ThreadID) { h.markers.AuthorCancelled(id) }, Now: o.Now, Log: o.Log,
		// A branch's approvals are asked by its canonical thread, and read with the branch.
		Approvals: func(thread string) []model.Approval {
			return h.approvals.OfThread(string(h.supervise.CanonicalOf(model.ThreadID(thread))))
		}})
	// Every change of an approval is published under the asking thread, so only who may see
	// the thread sees it.
	h.markers = h.newMarkers()
	h.handoffs = h.newHandoffs()
	h.approvals = approvals.New(approvals.Options{Now: o.Now,
		Policy: func() (string, time.Duration) { c := h.config().Approvals; return c.Owner, c.Timeout.Duration },
		OnChange: func(a model.Approval) {
			h.events.Publish(api.Event{Type: api.EventApproval, Thread: a.ThreadID, Status: a.State, TurnID: a.TurnID, Approval: &a})
			if w := h.watch; w != nil {
				w.OnEvent(model.ThreadID(a.ThreadID), model.ThreadActive, "") // watches on approval
			}
			if ctx := h.approvalsCtx.Load(); ctx != nil && a.State == model.ApprovalLost && a.Outcome == "" {
				go h.approvals.LookUpOutcome(*ctx, a, h.threads.WatchRead, o.Log)
			}
		},
		Persist: func(a model.Approval) {
			if err := h.store.PutApproval(a); err != nil {
				fmt.Fprintf(o.Log, "approval %s: %v\n", a.ID, err)
			}
		},
		Forget: func(id string) {
			if err := h.store.DeleteApproval(id); err != nil {
				fmt.Fprintf(o.Log, "approval %s: %v\n", id, err)
			}
		}})
	h.fleet = fleet.New(fleet.Options{Home: o.Home, Environ: o.Environ, OneShot: o.OneShot, Config: h.config, Start: h.launch.Start,
		Links: h.supervise, Approvals: h.approvals, Now: o.Now, Log: o.Log,
		Archived: func(ctx context.Context, id model.ThreadID) *model.MarkerCleanup {
			h.agents.End(id)
			return h.markers.ThreadArchived(ctx, id)
		}})
	h.routes = h.newRoutes()
}

// startSupervision runs the supervised threads on the catalog, the native harness and, for
// branches of extra Codex homes, an App Server of their home started on first use.
func (h *Host) startSupervision(cfg *config.Config, appEnv []string, logDir string) error {
	cat, err := h.fleet.Catalog()
	if err != nil {
		return err
	}
	codexBin := cfg.CodexBin
	return h.supervise.Start(supervise.Deps{Store: h.store, Catalog: cat, Native: h.native, CodexHomes: cfg.Catalog.CodexHomes,
		Dir: filepath.Join(h.opts.Home, supervise.DirName),
		StartNative: func(hostID, home string, onEvent func(harness.Event)) *harness.Native {
			logName := filepath.Join(logDir, "app-server-supervise-"+strings.ReplaceAll(hostID, ":", "-")+".log")
			// The branches of an extra home ask approvals, and are kept from the secrets, as
			// the default home's threads are.
			hide, secretEnv := h.native.Confinement()
			return harness.NewNative(harness.NativeOptions{Start: h.launch.Start(codexBin, harness.WithVar(appEnv, "CODEX_HOME", home), logName),
				OnEvent: onEvent, Now: h.opts.Now, Approvals: h.approvals.Ask, Hide: hide, SecretEnv: secretEnv})
		}})
}

// Threads is the host's thread capability (for in-process callers such as tests).
func (h *Host) Threads() *threads.Service { return h.threads }

// Native is the host's Codex harness, running once the host holds its home (for in-process
// callers such as tests).
func (h *Host) Native() *harness.Native { return h.native }

// WarmCatalog starts reading the catalog's hosts ahead in the background, so that the first
// search of a lasting runtime (serve) is served from memory. Runtimes of one command skip it.
func (h *Host) WarmCatalog() { h.fleet.Warm() }

// nativeOfHost reaches the native harness, which exists once the host holds the store.
type nativeOfHost struct{ h *Host }

func (n nativeOfHost) Client(ctx context.Context) (*appserver.Client, error) {
	if n.h.native == nil {
		return nil, model.Errorf(model.CodeAppServerUnavailable, "retry once the runtime holds its home", "the native harness is not running")
	}
	return n.h.native.Client(ctx)
}

func (n nativeOfHost) Active() []model.ThreadID {
	if n.h.native == nil {
		return nil
	}
	return n.h.native.Active()
}

func (n nativeOfHost) start(ctx context.Context) error {
	_, err := n.Client(ctx)
	return err
}

// recordUsage records a harness's usage report at the event's time.
func (h *Host) recordUsage(ev harness.Event) { h.threads.RecordUsage(ev, eventTime(ev, h.opts.Now)) }
