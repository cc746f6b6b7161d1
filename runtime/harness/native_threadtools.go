package harness

import (
	"math"

	"github.com/codexhost/codexhost/runtime/api"
)

// ThreadToolsServer is the name under which a native thread gets codexhost's own MCP server
// when [appserver] thread_tools is on; Codex shows its tools to the model as mcp__codexhost.
const ThreadToolsServer = "codexhost"

// withThreadTools returns cfg (copied) with codexhost attached as an MCP server of the thread:
// `codexhost mcp` started by Codex in the thread's cwd, with the thread's own connection
// parameters, so each call acts as that thread (its principal, and parent of what it
// delegates) and the token is refused outside the processes codexhost started. Only the
// thread tools are offered, under their underscored names; those that change something are
// approved here, so they run under approval_policy = "never" without a prompt.
func withThreadTools(cfg map[string]any, conn Env, token, cwd string) map[string]any {
	out := make(map[string]any, len(cfg)+1)
	for k, v := range cfg {
		out[k] = v
	}
	enabled := make([]string, 0, len(api.ThreadTools))
	tools := map[string]any{}
	for _, t := range api.ThreadTools {
		enabled = append(enabled, t.Name)
		if !t.ReadOnly {
			tools[t.Name] = map[string]any{"approval_mode": "approve"}
		}
	}
	server := map[string]any{
		"command": conn.CLIPath,
		"args":    []string{"mcp"},
		"env":     map[string]any{EnvCLIPath: conn.CLIPath, EnvEndpoint: conn.Endpoint, EnvToken: token},
		// A thread.wait may block for its bound; Codex must not give up on it first.
		"tool_timeout_sec": math.Ceil(api.MaxToolWait.Seconds()) + 30,
		"enabled_tools":    enabled,
		"tools":            tools,
	}
	if cwd != "" {
		server["cwd"] = cwd
	}
	out["mcp_servers"] = map[string]any{ThreadToolsServer: server}
	return out
}
