package mcp

import (
	"fmt"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// IdentityNotice is what `codexhost mcp` over stdio says on stderr once it is connected:
// whom its tool calls act as and on which home. An MCP client that passes the server no
// environment (the Inspector without -e) otherwise gets the operator of a home it did not
// mean, silently.
func IdentityNotice(client, home string) string {
	if client == config.OperatorClient {
		return fmt.Sprintf("codexhost mcp: acting as the home's operator (client %q) on home %s; every tool call has the operator's rights. "+
			"To act as another client, start it with CODEXHOST_HOME and CODEXHOST_CLIENT_TOKEN in its environment.", client, home)
	}
	return fmt.Sprintf("codexhost mcp: acting as client %q on home %s.", client, home)
}

// AgentNotice is what `codexhost mcp` says when it was given host connection parameters (a
// thread's own MCP server): it acts as the agent of the thread those parameters belong to, on
// the runtime at that endpoint. It is said before any connection: such a server is started
// while its thread is being created, before the token is bound, so it dials at the first
// tool call and cannot name the thread yet.
func AgentNotice(conn api.Connection) string {
	return fmt.Sprintf("codexhost mcp: acting as the agent of the thread whose %s and %s it was given, on the runtime at %s "+
		"(it connects at the first tool call); it never acts as a client or the operator.", api.EnvEndpoint, api.EnvToken, conn.Endpoint)
}
