package mcp

import (
	"context"

	"github.com/codexhost/codexhost/runtime/api"
)

const endpointDesc = "a local catalog host id such as gateway:local (codex_endpoint_probe lists them); default: every endpoint, or the default one for a single session"

// compatTools are the five tools kept from the legacy supervisor: the compat.* runtime
// methods, with the same behaviour and policy as `codexhost compat`.
func compatTools() []Definition {
	return []Definition{
		tool("codex_endpoint_probe", "Reach each endpoint's Codex App Server and report its version and how many sessions it has loaded. Read-only.",
			true, false,
			object(str("endpoint", endpointDesc, 1, 256)),
			func(ctx context.Context, rt Runtime, a api.CompatProbeParams) (api.CompatProbeResult, error) {
				return api.CompatEndpointProbe.Call(ctx, rt, a)
			}),
		tool("codex_sessions_list", "List the Codex sessions loaded in each endpoint's App Server (loaded only by default). include_stored adds unarchived stored sessions, at most max_stored_sessions per endpoint; loaded sessions are never capped. Previews need allowRawTranscripts. Read-only.",
			true, false,
			object(str("endpoint", endpointDesc, 1, 256),
				boolean("include_stored", "add unarchived stored sessions that are not loaded", false),
				integer("max_stored_sessions", "stored sessions per endpoint, 1 to 1000 (default: [supervision] max_stored_sessions, else 200)", 1, 1000, 200)),
			func(ctx context.Context, rt Runtime, a api.CompatSessionsListParams) (api.CompatSessionsListResult, error) {
				return api.CompatSessionsList.Call(ctx, rt, a)
			}),
		tool("codex_session_read", "Read a Codex session and one page of its turns (the newest without cursor). Needs allowRawTranscripts. Read-only.",
			true, false,
			object(str("endpoint", endpointDesc, 1, 256),
				str("thread", "the session's thread id or codex://threads/<id> link", 1, 256).req(),
				str("cursor", "olderCursor or newerCursor of a previous read", 1, 1024)),
			func(ctx context.Context, rt Runtime, a api.CompatSessionReadParams) (api.CompatSessionReadResult, error) {
				return api.CompatSessionRead.Call(ctx, rt, a)
			}),
		tool("codex_session_send", "Add a message to a session's running turn (steer). It never starts or resumes an idle thread: mode start is always refused; use codexhost continue for that. Needs allowWriteControls.",
			false, false,
			object(str("endpoint", endpointDesc, 1, 256),
				str("thread", "the session's thread id or link", 1, 256).req(),
				str("message", "the message to add to the running turn", 1, 64000).req(),
				enum("mode", "auto or steer both steer the running turn; start is refused", "auto", api.CompatModeAuto, api.CompatModeSteer, api.CompatModeStart),
				str("expected_turn_id", "refuse unless this is the running turn", 1, 256)),
			func(ctx context.Context, rt Runtime, a api.CompatSessionSendParams) (api.CompatSessionSendResult, error) {
				return api.CompatSessionSend.Call(ctx, rt, a)
			}),
		tool("codex_session_interrupt", "Interrupt a session's running turn; Codex ends it as interrupted. Needs a readable active turn and allowWriteControls.",
			false, true,
			object(str("endpoint", endpointDesc, 1, 256),
				str("thread", "the session's thread id or link", 1, 256).req(),
				str("expected_turn_id", "refuse unless this is the running turn", 1, 256)),
			func(ctx context.Context, rt Runtime, a api.CompatSessionInterruptParams) (api.CompatSessionInterruptResult, error) {
				return api.CompatSessionInterrupt.Call(ctx, rt, a)
			}),
	}
}
