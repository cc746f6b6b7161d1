package api

import (
	"encoding/json"
	"slices"
)

// Paired nodes: another codexhost runtime (`codexhost serve --listen`) that this runtime's
// catalog reaches with a node token. A node offers versioned commands; the gateway invokes
// only those the node advertises and its own policy allows.

// Node methods; only a node caller (a client marked node in the node's config) may call them.
const (
	MethodNodeDescribe = "node.describe"
	MethodNodeInvoke   = "node.invoke"
)

// NodeHostPrefix starts the catalog host id of a paired node ("node:<name>").
const NodeHostPrefix = "node:"

// CallerNode is a paired gateway: it may call the node methods and nothing else.
const CallerNode = "node"

// Node commands. The version is part of the name: a changed contract is a new command.
const (
	NodeCmdThreadsList = "codex.appServer.threads.list.v1"
	NodeCmdTurnsList   = "codex.appServer.thread.turns.list.v1"
	// NodeCmdSessionResume runs `codex exec resume` on the node: it drives a native thread,
	// so a gateway must allow it explicitly.
	NodeCmdSessionResume = "codex.cli.session.resume"
)

// NodeCommands are the commands a node can offer, in order.
var NodeCommands = []string{NodeCmdThreadsList, NodeCmdTurnsList, NodeCmdSessionResume}

// KnownNodeCommand reports whether name is a node command.
func KnownNodeCommand(name string) bool { return slices.Contains(NodeCommands, name) }

// DangerousNodeCommand reports whether a gateway must allow name explicitly.
func DangerousNodeCommand(name string) bool { return name == NodeCmdSessionResume }

// NodeDescribeResult is what a node offers.
type NodeDescribeResult struct {
	Version  string   `json:"version"`
	Commands []string `json:"commands"`
}

// NodeInvokeParams invokes one command.
type NodeInvokeParams struct {
	Command string          `json:"command"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// NodeThreadsListParams is codex.appServer.threads.list.v1: one page of the node's unarchived
// interactive threads, metadata only.
type NodeThreadsListParams struct {
	Cursor        string `json:"cursor,omitempty"`
	Limit         int    `json:"limit"`
	SortDirection string `json:"sortDirection,omitempty"`
}

// NodeTurnsListParams is codex.appServer.thread.turns.list.v1: one bounded page of a
// thread's turns.
type NodeTurnsListParams struct {
	ThreadID      string `json:"threadId"`
	Cursor        string `json:"cursor,omitempty"`
	Limit         int    `json:"limit"`
	ItemsView     string `json:"itemsView,omitempty"`
	SortDirection string `json:"sortDirection,omitempty"`
}

// NodeSessionResumeParams is codex.cli.session.resume: one turn on the exact thread, the
// prompt given to `codex exec resume` on stdin.
type NodeSessionResumeParams struct {
	ThreadID string `json:"threadId"`
	Prompt   string `json:"prompt"`
}

// NodeSessionResumeResult is the turn's final assistant text.
type NodeSessionResumeResult struct {
	ThreadID  string `json:"threadId"`
	FinalText string `json:"finalText"`
}

// NodeRPCErrorDetail carries an App Server's answer about a thread from a node to its gateway
// (details rpcCode and rpcMessage), so the gateway tells "no such thread" from a failed node.
// The gateway never shows it to its callers.
const (
	NodeDetailRPCCode    = "rpcCode"
	NodeDetailRPCMessage = "rpcMessage"
)
