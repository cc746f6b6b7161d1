package mcp

import (
	"fmt"

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
