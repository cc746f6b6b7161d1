package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// describeTTL is how long a node's advertised commands are trusted before they are asked
// again: eligibility follows the node's live command set.
const describeTTL = 30 * time.Second

// NodeHostID is the host id of the paired node called name.
func NodeHostID(name string) string { return nodeHostPrefix + name }

// NodeSource returns the source of a paired node's host.
func (c *Catalog) NodeSource(hostID string) (*NodeSource, bool) {
	h := c.byID[hostID]
	if h == nil || h.node() == nil {
		return nil, false
	}
	return h.node(), true
}

// NodeSource reaches a paired node: another codexhost runtime, over TCP with a node token.
// It is a Source whose connection maps the two App Server methods the catalog needs onto
// the node's versioned commands; nothing else reaches the node.
type NodeSource struct {
	name, endpoint, token string
	allows                func(command string) bool // the gateway's command policy, read live
	now                   func() time.Time

	mu        sync.Mutex
	client    *api.Client
	commands  []string // advertised at the last describe
	described time.Time
	closed    bool
}

// NewNodeSource returns the source of node name at address (host:port). allows is the
// gateway's policy for node commands.
func NewNodeSource(name, address, token string, allows func(string) bool, now func() time.Time) *NodeSource {
	if now == nil {
		now = time.Now
	}
	return &NodeSource{name: name, endpoint: api.TCPEndpoint(address), token: token, allows: allows, now: now}
}

func (n *NodeSource) offline(format string, args ...any) *model.Error {
	return model.Errorf(model.CodeNodeOffline, "start `codexhost serve --listen` on the node, or check its address in [nodes."+n.name+"] of config.toml",
		format, args...).WithDetail("node", n.name)
}

// connect returns a connection whose describe is fresh, dialling and describing as needed.
func (n *NodeSource) connect(ctx context.Context) (*api.Client, []string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, nil, closedErr()
	}
	if n.client != nil && !n.alive() {
		_ = n.client.Close()
		n.client = nil
	}
	if n.client == nil {
		c, err := api.Dial(ctx, n.endpoint, n.token)
		if err != nil {
			if model.IsCode(err, model.CodePermissionDenied) {
				return nil, nil, model.Errorf(model.CodeNodeInvokeFailed, "make a new token with `codexhost node allow` on the node and pair again with `codexhost node pair`",
					"node %s refused this gateway's token", n.name).WithDetail("node", n.name)
			}
			return nil, nil, n.offline("node %s is offline", n.name)
		}
		n.client, n.described = c, time.Time{}
	}
	if n.described.IsZero() || n.now().Sub(n.described) >= describeTTL {
		d, err := api.NodeDescribe.Call(ctx, n.client, struct{}{})
		if err != nil {
			return nil, nil, n.callError(err)
		}
		n.commands, n.described = d.Commands, n.now()
	}
	return n.client, n.commands, nil
}

// alive reports whether the cached connection still works; called with mu held.
func (n *NodeSource) alive() bool {
	return n.client.Err() == nil
}

// callError maps a failed node call: a lost connection is NODE_OFFLINE (and is dropped), an
// App Server's answer about a thread becomes an RPC error the catalog interprets, anything
// else the node refused is NODE_INVOKE_FAILED. Called with or without mu.
func (n *NodeSource) callError(err error) error {
	var me *model.Error
	if !errors.As(err, &me) || me.Code == model.CodeRuntimeUnreachable {
		return n.offline("lost the connection to node %s", n.name)
	}
	if msg, ok := me.Details[api.NodeDetailRPCMessage].(string); ok {
		code, _ := me.Details[api.NodeDetailRPCCode].(float64)
		return &appserver.RPCError{Code: int(code), Message: msg}
	}
	switch me.Code {
	case model.CodeThreadNotFound, model.CodeThreadBusy, model.CodeInvalidArgument:
		// Answers about the request, not failures of the node.
		return me
	}
	e := model.Errorf(model.CodeNodeInvokeFailed, me.Hint, "node %s: %s", n.name, me.Message).WithDetail("node", n.name)
	if me.Code != model.CodeNodeInvokeFailed {
		e = e.WithDetail("nodeCode", string(me.Code))
	}
	return e
}

// Conn returns the node's connection as a catalog Conn.
func (n *NodeSource) Conn(ctx context.Context) (Conn, error) {
	if _, _, err := n.connect(ctx); err != nil {
		return nil, err
	}
	return nodeConn{n}, nil
}

// Close drops the connection.
func (n *NodeSource) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.client != nil {
		err := n.client.Close()
		n.client = nil
		return err
	}
	return nil
}

// Commands returns the node's commands this gateway may invoke (advertised and allowed),
// asking the node when the last answer is old; an offline node has none.
func (n *NodeSource) Commands(ctx context.Context) ([]string, error) {
	_, advertised, err := n.connect(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(advertised))
	for _, c := range api.NodeCommands {
		if slices.Contains(advertised, c) && n.allows(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Invoke calls command on the node; a command the node does not advertise or the gateway
// does not allow is refused without a call.
func (n *NodeSource) Invoke(ctx context.Context, command string, params, out any) error {
	client, advertised, err := n.connect(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(advertised, command) {
		return model.Errorf(model.CodeNodeInvokeFailed, "the node's [node] commands in its config.toml decide what it offers",
			"node %s does not offer %s", n.name, command).WithDetail("node", n.name)
	}
	if !n.allows(command) {
		hint := "remove it from gateway.nodes.commands.deny in config.toml"
		if api.DangerousNodeCommand(command) {
			hint = "allow it explicitly: gateway.nodes.commands.allow = [\"" + command + "\"] in config.toml (a deny wins)"
		}
		return model.Errorf(model.CodeNodeInvokeFailed, hint, "this gateway does not allow %s on paired nodes", command).WithDetail("node", n.name)
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	answer, err := api.NodeInvoke.Call(ctx, client, api.NodeInvokeParams{Command: command, Params: raw})
	if err == nil && out != nil {
		// The answer is the command's own: decoded here, failing as the client's decode does.
		if derr := json.Unmarshal(answer, out); derr != nil {
			err = model.AsError(fmt.Errorf("decode the runtime's answer to %s: %w", api.NodeInvoke.Name, derr))
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return n.callError(err)
	}
	return nil
}

// nodeConn is a node as a catalog Conn: thread/list and thread/turns/list map onto the
// node's commands; every other App Server method is refused, so nothing the catalog does
// to a local host (read, fork, archive) can reach a node by accident.
type nodeConn struct{ n *NodeSource }

func (c nodeConn) Call(ctx context.Context, method string, params, out any) error {
	switch method {
	case appserver.MethodThreadList:
		var q appserver.ThreadListParams
		if err := remarshal(params, &q); err != nil {
			return err
		}
		if (q.Archived != nil && *q.Archived) || q.AncestorThreadID != "" || len(q.SourceKinds) > 0 {
			return nodeRefused(c.n.name, method)
		}
		return c.n.Invoke(ctx, api.NodeCmdThreadsList, api.NodeThreadsListParams{Cursor: q.Cursor, Limit: q.Limit, SortDirection: q.SortDirection}, out)
	case appserver.MethodTurnsList:
		var q appserver.TurnsListParams
		if err := remarshal(params, &q); err != nil {
			return err
		}
		return c.n.Invoke(ctx, api.NodeCmdTurnsList, api.NodeTurnsListParams{ThreadID: q.ThreadID, Cursor: q.Cursor, Limit: q.Limit, ItemsView: q.ItemsView, SortDirection: q.SortDirection}, out)
	}
	return nodeRefused(c.n.name, method)
}

func (c nodeConn) Info() appserver.InitializeResult { return appserver.InitializeResult{} }

// Pid is 0: the App Server runs on another machine.
func (c nodeConn) Pid() int { return 0 }

func nodeRefused(name, method string) error {
	return model.Errorf(model.CodeFailedPrecondition, "paired nodes offer listing, transcripts and continue only",
		"%s is not available on paired node %s", method, name)
}

func remarshal(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}
