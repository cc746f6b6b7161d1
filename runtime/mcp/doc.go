// Package mcp serves codexhost's handoff, task, skill and compat tools over the Model Context
// Protocol (the official Go SDK), as a client of the runtime API: every tool call is one or
// more runtime calls made with the MCP caller's own connection, so the routing table's
// policies apply unchanged.
package mcp
