package fakemodel

import "strings"

// MCPNamespace is the namespace tool under which Codex offers the tools of the MCP server
// named server (its [mcp_servers.NAME] key): mcp__NAME.
func MCPNamespace(server string) string { return "mcp__" + server }

// MCPToolName is how Codex names an MCP tool to the model: dots become underscores
// (handoff.create is offered as handoff_create).
func MCPToolName(tool string) string { return strings.ReplaceAll(tool, ".", "_") }

// MCPToolCall makes the model call the tool of the MCP server named server the way Codex
// needs it: a function_call with "namespace":"mcp__SERVER" and the underscored name (Codex
// refuses the flat mcp__SERVER__tool form). The request must offer the tool inside that
// namespace, else the turn fails with an HTTP 400 listing what was offered. As with
// FunctionCall, the follow-up request, which carries the tool's result (Request.ToolOutput),
// gets the message "tool finished (fake reply #N)".
func MCPToolCall(server, tool, argsJSON string) Behavior {
	b := FunctionCall(MCPToolName(tool), argsJSON)
	b.namespace = MCPNamespace(server)
	return b
}

// MCPToolCallFrom is MCPToolCall whose arguments args makes from the output of the call
// before it in the same turn: queued after another call, it is served to that call's
// follow-up request (and calls the tool) instead of answering with a message. So a turn can
// chain calls whose arguments depend on earlier results (an id a tool returned).
func MCPToolCallFrom(server, tool string, args func(prevOutput string) string) Behavior {
	b := MCPToolCall(server, tool, "")
	b.argsFrom = args
	return b
}

// offeredIn reports whether the request offers b's tool, in b's namespace when it names one,
// and in which namespace.
func (b Behavior) offeredIn(body map[string]any) (string, bool) {
	if b.namespace == "" {
		return offeredTool(body, b.tool)
	}
	for _, t := range offeredTools(body) {
		if t.namespace == b.namespace && t.name == b.tool {
			return t.namespace, true
		}
	}
	return "", false
}
