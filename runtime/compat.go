package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// compatPolicy is what one caller may do with the compat tools.
type compatPolicy struct {
	raw       bool // transcript-derived list fields and session read
	write     bool // session send and interrupt
	storedCap int  // default cap of stored rows per endpoint
}

// compatWrite reports whether a compat method acts on a turn.
func compatWrite(method string) bool {
	return method == api.MethodCompatSessionSend || method == api.MethodCompatSessionInterrupt
}

// authorizeCompat decides whether caller may run a compat tool, before anything else
// happens: a refusal is PERMISSION_DENIED with no App Server call.
//
// Agents (runtime token) follow the [supervision] table: nothing unless enabled, session
// read with allowRawTranscripts, send and interrupt with allowWriteControls. External
// clients follow their own flags and operator scopes, as for the catalog: operator.read for
// probe, list and read, operator.write for send and interrupt. The table is read again first
// (a stat when unchanged), so that the operator turns the tools on or off without a restart.
func (h *Host) authorizeCompat(caller api.Caller, method string) (compatPolicy, error) {
	if err := h.reloadConfig(); err != nil {
		fmt.Fprintf(h.opts.Log, "config reload: %v\n", err)
	}
	cfg := h.config()
	pol := compatPolicy{storedCap: cfg.CompatTools.StoredCap()}
	var rawHint, writeHint string
	switch caller.Kind {
	case api.CallerRuntime:
		if !cfg.CompatTools.Enabled {
			return pol, model.Errorf(model.CodePermissionDenied, "ask the user to set enabled = true under [supervision] in config.toml",
				"the compat tools are disabled for agents (%s)", method)
		}
		pol.raw, pol.write = cfg.CompatTools.AllowRawTranscripts, cfg.CompatTools.AllowWriteControls
		rawHint = "ask the user to set allowRawTranscripts = true under [supervision] in config.toml"
		writeHint = "ask the user to set allowWriteControls = true under [supervision] in config.toml"
	case api.CallerClient:
		need := config.ScopeRead
		if compatWrite(method) {
			need = config.ScopeWrite
		}
		grant := cfg.Grant(caller.Client)
		if !grant.Has(need) {
			return pol, model.Errorf(model.CodePermissionDenied, "grant it in config.toml: scopes = [\""+need+"\"] under [clients."+caller.Client+"]",
				"client %s lacks the %s scope for %s", caller.Client, need, method)
		}
		pol.raw, pol.write = grant.AllowRawTranscripts, grant.AllowWriteControls
		rawHint = "set allowRawTranscripts = true under [clients." + caller.Client + "] in config.toml"
		writeHint = "set allowWriteControls = true under [clients." + caller.Client + "] in config.toml"
	default:
		return pol, model.Errorf(model.CodePermissionDenied, "", "%s needs an agent or a client", method)
	}
	switch {
	case method == api.MethodCompatSessionRead && !pol.raw:
		return pol, model.Errorf(model.CodePermissionDenied, rawHint, "reading a session's transcript needs allowRawTranscripts (%s)", method)
	case compatWrite(method) && !pol.write:
		return pol, model.Errorf(model.CodePermissionDenied, writeHint, "steering or interrupting a turn needs allowWriteControls (%s)", method)
	}
	return pol, nil
}

// handleCompat serves the compat tools.
func (h *Host) handleCompat(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error) {
	pol, err := h.authorizeCompat(caller, method)
	if err != nil {
		return nil, err
	}
	if h.catalog == nil {
		return nil, model.Errorf(model.CodeFailedPrecondition, "restart the runtime", "the catalog is not running")
	}
	switch method {
	case api.MethodCompatEndpointProbe:
		return decodeStrict(ctx, params, func(ctx context.Context, p api.CompatProbeParams) (any, error) {
			return h.catalog.CompatProbe(ctx, p)
		})
	case api.MethodCompatSessionsList:
		return decodeStrict(ctx, params, func(ctx context.Context, p api.CompatSessionsListParams) (any, error) {
			limit := pol.storedCap
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
			return h.catalog.CompatList(ctx, p.Endpoint, p.IncludeStored, limit, pol.raw)
		})
	case api.MethodCompatSessionRead:
		return decodeStrict(ctx, params, func(ctx context.Context, p api.CompatSessionReadParams) (any, error) {
			return h.catalog.CompatRead(ctx, p)
		})
	case api.MethodCompatSessionSend:
		return decodeStrict(ctx, params, func(ctx context.Context, p api.CompatSessionSendParams) (any, error) {
			switch p.Mode {
			case "", api.CompatModeAuto, api.CompatModeSteer:
			case api.CompatModeStart:
				return nil, model.Errorf(model.CodeInvalidArgument,
					"compat send never starts or resumes a thread; continue an idle session with `codexhost continue T`",
					"mode start is not supported").WithDetail("mode", p.Mode)
			default:
				return nil, model.Errorf(model.CodeInvalidArgument, "use mode auto or steer (both steer the running turn)", "unknown mode %q", p.Mode)
			}
			if strings.TrimSpace(p.Message) == "" {
				return nil, model.Errorf(model.CodeInvalidArgument, "pass the message to add to the running turn", "empty message")
			}
			if err := checkText("message", p.Message); err != nil {
				return nil, err
			}
			return h.catalog.CompatSend(ctx, p)
		})
	case api.MethodCompatSessionInterrupt:
		return decodeStrict(ctx, params, func(ctx context.Context, p api.CompatSessionInterruptParams) (any, error) {
			return h.catalog.CompatInterrupt(ctx, p)
		})
	}
	return nil, fmt.Errorf("%w: %s", api.ErrUnknownMethod, method)
}

// decodeStrict is decodeCall refusing unknown fields: a compat tool asked for an option it
// lacks (loaded_only, say) says so instead of quietly doing something else.
func decodeStrict[P any](ctx context.Context, raw json.RawMessage, fn func(context.Context, P) (any, error)) (any, error) {
	var p P
	if len(raw) > 0 && string(raw) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			hint := "check the request fields"
			if strings.Contains(err.Error(), `"loaded_only"`) {
				hint = "sessions-list lists loaded sessions only by default; pass include_stored to add stored ones"
			}
			return nil, model.Errorf(model.CodeInvalidArgument, hint, "malformed parameters: %v", err)
		}
	}
	return fn(ctx, p)
}
