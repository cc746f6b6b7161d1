package runtime

import (
	"context"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/codexsetup"
	"github.com/codexhost/codexhost/runtime/route"
)

// codexSetupPolicy: the status names paths of the runtime's machine, and the install runs npm
// there with the runtime's rights, so both are for the home's operator client alone.
var codexSetupPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	AgentHint: "ask the user to install Codex from the terminal app",
	Hint:      "run the terminal app (codexhost) as the operator on the runtime's machine, or `codexhost doctor`"}

// codexInstallTimeout bounds one install: about 160 MB to download (0.169.0).
const codexInstallTimeout = 15 * time.Minute

func (h *Host) codexSetupRoutes() []route.Route {
	return []route.Route{
		route.Spec[struct{}]{Method: api.MethodCodexStatus, Policy: codexSetupPolicy,
			Call: func(context.Context, route.Env, struct{}) (any, error) { return h.CodexStatus(), nil }}.Route(),
		route.Spec[api.CodexInstallParams]{Method: api.MethodCodexInstall, Policy: codexSetupPolicy,
			Call: func(ctx context.Context, _ route.Env, p api.CodexInstallParams) (any, error) {
				return h.InstallCodex(ctx, p)
			}}.Route(),
	}
}

// codexSearch is where this runtime's App Servers look for codex: configured, the
// environment, the home's copy, the checkout's copy for a development build, PATH.
func (h *Host) codexSearch(configured string, lookup func(string) string) appserver.Search {
	return appserver.Search{Configured: configured, Getenv: lookup, Home: h.opts.Home, Dir: appserver.SearchDir(h.opts.Version)}
}

// CodexStatus is what the locator finds for the native App Server, and whether installing
// the pinned copy into the home would run.
func (h *Host) CodexStatus() api.CodexStatus {
	lookup := envLookup(h.opts.Environ)
	return codexsetup.Status(h.codexSearch(h.config().CodexBin, lookup), lookup("PATH"))
}

// InstallCodex installs the pinned @openai/codex into the home with npm when no codex is
// found, then starts the native App Server on it: every start locates the binary again, and
// the catalog's hosts that failed for want of it are retried at once. The App Server failing
// to start is reported in the result; the install itself stands.
func (h *Host) InstallCodex(ctx context.Context, p api.CodexInstallParams) (api.CodexInstallResult, error) {
	st := h.CodexStatus()
	if !st.CanInstall {
		return api.CodexInstallResult{}, st.InstallRefusal
	}
	var progress func(string)
	if p.Progress {
		progress = func(line string) {
			api.Notify(ctx, api.Event{Type: api.EventCodexInstall, Install: &api.CodexInstallProgress{Line: line}})
		}
	}
	ictx, cancel := context.WithTimeout(ctx, codexInstallTimeout)
	defer cancel()
	start := h.opts.Now()
	lookup := envLookup(h.opts.Environ)
	bin, err := codexsetup.Install(ictx, codexsetup.Options{Home: h.opts.Home, Path: lookup("PATH"), Getenv: lookup, Progress: progress})
	if err != nil {
		return api.CodexInstallResult{}, err
	}
	res := api.CodexInstallResult{Bin: bin, InstallDir: st.InstallDir, Version: appserver.PinnedVersion,
		DurationMs: h.opts.Now().Sub(start).Milliseconds()}
	h.logf("codex: installed @openai/codex@%s into %s in %dms", appserver.PinnedVersion, st.InstallDir, res.DurationMs)
	if h.catalog != nil {
		h.catalog.RetryUnavailable()
	}
	if h.native == nil {
		res.StartError = model.Errorf(model.CodeAppServerUnavailable, "retry once the runtime holds its home", "the native harness is not running")
		return res, nil
	}
	if _, err := h.native.Client(ctx); err != nil {
		res.StartError = model.AsError(err)
		return res, nil
	}
	res.Started = true
	return res, nil
}
