package api

import "time"

// ThreadTool is one MCP tool a native thread can be given to act through codexhost inside its
// own turn (runtime/mcp defines them; the native harness attaches the server). Name is the
// tool's underscored alias, the name Codex shows the model.
type ThreadTool struct {
	Name     string
	ReadOnly bool
}

// ThreadTools are the thread tools, in tools/list order.
var ThreadTools = []ThreadTool{
	{Name: "thread_delegate_start"},
	{Name: "thread_read", ReadOnly: true},
	{Name: "thread_wait", ReadOnly: true},
	{Name: "thread_list", ReadOnly: true},
	{Name: "thread_send"},
	{Name: "thread_cancel"},
	{Name: "thread_watch"},
}

// MaxToolWait bounds thread.wait inside a turn: the model's turn is blocked while it waits,
// and Codex gives up on a tool call after its tool timeout (set a little above this).
const MaxToolWait = 10 * time.Minute
