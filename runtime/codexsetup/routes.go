package codexsetup

import (
	"context"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/route"
)

// policy: the status names paths of the runtime's machine, and the install runs npm there
// with the runtime's rights, so both are for the home's operator client alone.
var policy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	AgentHint: "ask the user to install Codex from the terminal app",
	Hint:      "run the terminal app (codexhost) as the operator on the runtime's machine, or `codexhost doctor`"}

// installTimeout bounds one install: about 160 MB to download (0.169.0).
const installTimeout = 15 * time.Minute

// Search is where a runtime's App Servers look for codex: configured, the environment, the
// home's copy, the checkout's copy for a development build, PATH.
func Search(home, version, configured string, lookup func(string) string) appserver.Search {
	return appserver.Search{Configured: configured, Getenv: lookup, Home: home, Dir: appserver.SearchDir(version)}
}

// Setup is the Codex setup of one runtime: codex.status and codex.install.
type Setup struct {
	Home, Version string
	Lookup        func(string) string // the runtime's environment
	CodexBin      func() string       // codex_bin of config.toml, read live
	// Start starts the native App Server on what the locator now finds.
	Start func(ctx context.Context) error
	// Installed is told of an install, so that hosts that failed for want of codex retry.
	Installed func()
	Now       func() time.Time
	Logf      func(format string, args ...any)
}

// Routes are codex.status and codex.install.
func (s Setup) Routes() []route.Route {
	return []route.Route{
		route.Spec[struct{}]{Method: api.MethodCodexStatus, Policy: policy,
			Call: func(context.Context, route.Env, struct{}) (any, error) { return s.Status(), nil }}.Route(),
		route.Spec[api.CodexInstallParams]{Method: api.MethodCodexInstall, Policy: policy,
			Call: func(ctx context.Context, _ route.Env, p api.CodexInstallParams) (any, error) {
				return s.Install(ctx, p)
			}}.Route(),
	}
}

// Status is what the locator finds for the native App Server, and whether installing the
// pinned copy into the home would run.
func (s Setup) Status() api.CodexStatus {
	return Status(Search(s.Home, s.Version, s.CodexBin(), s.Lookup), s.Lookup("PATH"))
}

// Install installs the pinned @openai/codex into the home with npm when no codex is found,
// then starts the native App Server on it: every start locates the binary again, and the
// catalog's hosts that failed for want of it are retried at once. The App Server failing to
// start is reported in the result; the install itself stands.
func (s Setup) Install(ctx context.Context, p api.CodexInstallParams) (api.CodexInstallResult, error) {
	st := s.Status()
	if !st.CanInstall {
		return api.CodexInstallResult{}, st.InstallRefusal
	}
	var progress func(string)
	if p.Progress {
		progress = func(line string) {
			api.Notify(ctx, api.Event{Type: api.EventCodexInstall, Install: &api.CodexInstallProgress{Line: line}})
		}
	}
	ictx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	start := s.Now()
	bin, err := Install(ictx, Options{Home: s.Home, Path: s.Lookup("PATH"), Getenv: s.Lookup, Progress: progress})
	if err != nil {
		return api.CodexInstallResult{}, err
	}
	res := api.CodexInstallResult{Bin: bin, InstallDir: st.InstallDir, Version: appserver.PinnedVersion,
		DurationMs: s.Now().Sub(start).Milliseconds()}
	s.Logf("codex: installed @openai/codex@%s into %s in %dms", appserver.PinnedVersion, st.InstallDir, res.DurationMs)
	s.Installed()
	if err := s.Start(ctx); err != nil {
		res.StartError = model.AsError(err)
		return res, nil
	}
	res.Started = true
	return res, nil
}
