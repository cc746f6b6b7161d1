package auth

import (
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// InflightLimit lifts the per-connection request limit of the runtime API for the home's
// operator client: a follower runtime forwards every request of its own clients over one
// connection as that client, and each of those is already limited where it came in.
func InflightLimit(c api.Caller) int {
	if c.Kind == api.CallerClient && c.Client == config.OperatorClient {
		return -1
	}
	return 0
}

// Allowances of the principals the runtime itself vouches for, beyond a client's defaults.
const (
	operatorConns = 256
	agentConns    = 256      // the runtime's own in-process callers, and unbound agents
	threadConns   = 32       // the agent of one thread
	agentBytes    = 64 << 20 // of in-process callers
	threadBytes   = 16 << 20 // of one thread's agent
)

// PrincipalLimits gives the operator and the runtime's own agents allowances of their own
// (per thread for agents),
// outside MaxConns, so that clients filling it lock neither out. The operator's bytes in
// flight are not capped: a follower forwards all its clients' requests as the operator, each
// already capped where it came in.
func PrincipalLimits(c api.Caller) api.PrincipalLimits {
	switch {
	case c.Kind == api.CallerClient && c.Client == config.OperatorClient:
		return api.PrincipalLimits{Conns: operatorConns, BytesInFlight: -1, Reserved: true}
	case c.Kind == api.CallerRuntime && (c.Thread != "" || c.Unbound):
		// Each thread's agent has an account of its own (api.capKey).
		return api.PrincipalLimits{Conns: threadConns, BytesInFlight: threadBytes, Reserved: true}
	case c.Kind == api.CallerRuntime:
		return api.PrincipalLimits{Conns: agentConns, BytesInFlight: agentBytes, Reserved: true}
	}
	return api.PrincipalLimits{}
}
