// Package compat serves the compat tools of the legacy supervisor (compat.*): probe, list
// and read through the catalog, which lists and reads; send and interrupt through the
// turns of runtime/supervise.
package compat

import (
	"context"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/runtime/threads"
)

// Compat tool policies. Agents (runtime token) follow the [supervision] table: nothing unless
// enabled, session read with allowRawTranscripts, send and interrupt with allowWriteControls.
// External clients follow their own flags and operator scopes, as for the catalog:
// operator.read for probe, list and read, operator.write for send and interrupt. The table is
// read again on every call (a stat when unchanged), so that the operator turns the tools on or
// off without a restart.
var (
	listPolicy = &route.Policy{Agents: &route.AgentRule{Gate: agentGate(false, false)},
		Clients: &route.ClientRule{Scope: config.ScopeRead}}
	readPolicy = &route.Policy{Agents: &route.AgentRule{Gate: agentGate(true, false)},
		Clients: &route.ClientRule{Scope: config.ScopeRead, RawTranscripts: true}}
	writePolicy = &route.Policy{Agents: &route.AgentRule{Gate: agentGate(false, true)},
		Clients: &route.ClientRule{Scope: config.ScopeWrite, WriteControls: true}}
)

func agentGate(raw, write bool) func(*config.Config, string) error {
	return func(cfg *config.Config, method string) error {
		sv := cfg.CompatTools
		switch {
		case !sv.Enabled:
			return model.Errorf(model.CodePermissionDenied, "ask the user to set enabled = true under [supervision] in config.toml",
				"the compat tools are disabled for agents (%s)", method)
		case raw && !sv.AllowRawTranscripts:
			return model.Errorf(model.CodePermissionDenied, "ask the user to set allowRawTranscripts = true under [supervision] in config.toml",
				"reading a session's transcript needs allowRawTranscripts (%s)", method)
		case write && !sv.AllowWriteControls:
			return model.Errorf(model.CodePermissionDenied, "ask the user to set allowWriteControls = true under [supervision] in config.toml",
				"steering or interrupting a turn needs allowWriteControls (%s)", method)
		}
		return nil
	}
}

// rawFields reports whether list rows may carry transcript-derived fields (previews)
// for this caller: shaping of the answer, not admission, which the policies decide.
func rawFields(env route.Env) bool {
	if env.Caller.Kind == api.CallerRuntime {
		return env.Config.CompatTools.AllowRawTranscripts
	}
	return env.Grant().AllowRawTranscripts
}

// decodeHint points a caller asking for an option the tools lack at the one they have.
func decodeHint(err error) string {
	if strings.Contains(err.Error(), `"loaded_only"`) {
		return "sessions-list lists loaded sessions only by default; pass include_stored to add stored ones"
	}
	return ""
}

// Turns acts on running turns (supervise.Service).
type Turns interface {
	CompatSend(ctx context.Context, p api.CompatSessionSendParams) (api.CompatSessionSendResult, error)
	CompatInterrupt(ctx context.Context, p api.CompatSessionInterruptParams) (api.CompatSessionInterruptResult, error)
}

// Routes are the compat.* methods over the running catalog (cat) and turns.
func Routes(cat func() (*catalog.Catalog, error), turns Turns) []route.Route {
	return []route.Route{
		route.Spec[api.CompatProbeParams]{Method: api.MethodCompatEndpointProbe, Policy: listPolicy, Strict: true,
			Call: func(ctx context.Context, _ route.Env, p api.CompatProbeParams) (any, error) {
				c, err := cat()
				if err != nil {
					return nil, err
				}
				return c.CompatProbe(ctx, p)
			}}.Route(),
		route.Spec[api.CompatSessionsListParams]{Method: api.MethodCompatSessionsList, Policy: listPolicy, Strict: true,
			DecodeHint: decodeHint, Call: func(ctx context.Context, env route.Env, p api.CompatSessionsListParams) (any, error) {
				return sessionsList(ctx, cat, env, p)
			}}.Route(),
		route.Spec[api.CompatSessionReadParams]{Method: api.MethodCompatSessionRead, Policy: readPolicy, Strict: true,
			Call: func(ctx context.Context, _ route.Env, p api.CompatSessionReadParams) (any, error) {
				c, err := cat()
				if err != nil {
					return nil, err
				}
				return c.CompatRead(ctx, p)
			}}.Route(),
		route.Spec[api.CompatSessionSendParams]{Method: api.MethodCompatSessionSend, Policy: writePolicy, Strict: true,
			Call: func(ctx context.Context, _ route.Env, p api.CompatSessionSendParams) (any, error) {
				if err := checkSend(p); err != nil {
					return nil, err
				}
				return turns.CompatSend(ctx, p)
			}}.Route(),
		route.Spec[api.CompatSessionInterruptParams]{Method: api.MethodCompatSessionInterrupt, Policy: writePolicy, Strict: true,
			Call: func(ctx context.Context, _ route.Env, p api.CompatSessionInterruptParams) (any, error) {
				return turns.CompatInterrupt(ctx, p)
			}}.Route(),
	}
}

func sessionsList(ctx context.Context, cat func() (*catalog.Catalog, error), env route.Env, p api.CompatSessionsListParams) (any, error) {
	c, err := cat()
	if err != nil {
		return nil, err
	}
	limit := env.Config.CompatTools.StoredCap()
	if p.MaxStoredSessions != nil {
		if err := config.CheckStoredCap("max_stored_sessions", *p.MaxStoredSessions); err != nil {
			return nil, err
		}
		if !p.IncludeStored {
			return nil, model.Errorf(model.CodeInvalidArgument, "pass include_stored (--include-stored) with it, or leave it out",
				"max_stored_sessions caps stored rows, which only include_stored adds")
		}
		limit = *p.MaxStoredSessions
	}
	return c.CompatList(ctx, p.Endpoint, p.IncludeStored, limit, rawFields(env))
}

// checkSend refuses a send that could start or resume a thread, or carries no message.
func checkSend(p api.CompatSessionSendParams) error {
	switch p.Mode {
	case "", api.CompatModeAuto, api.CompatModeSteer:
	case api.CompatModeStart:
		return model.Errorf(model.CodeInvalidArgument,
			"compat send never starts or resumes a thread; continue an idle session with `codexhost continue T`",
			"mode start is not supported").WithDetail("mode", p.Mode)
	default:
		return model.Errorf(model.CodeInvalidArgument, "use mode auto or steer (both steer the running turn)", "unknown mode %q", p.Mode)
	}
	if strings.TrimSpace(p.Message) == "" {
		return model.Errorf(model.CodeInvalidArgument, "pass the message to add to the running turn", "empty message")
	}
	return threads.CheckText("message", p.Message)
}
