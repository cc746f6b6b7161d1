package config

import (
	"net"
	"slices"
	"sort"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// NodeServe is what this runtime offers as a paired node. Nothing is offered until a node
// client exists (`codexhost node allow`); Commands narrows what is advertised to gateways.
type NodeServe struct {
	// Commands advertised to paired gateways; empty means every known command.
	Commands []string `toml:"commands,omitempty"`
}

// Node is a paired node: another codexhost runtime reached over TCP with a node token that
// the node issued (`codexhost node allow` there). Its host id is "node:<name>".
type Node struct {
	Address string `toml:"address"` // host:port of the node's `serve --listen`
	Token   string `toml:"token"`
}

// Gateway holds this runtime's policy for paired nodes.
type Gateway struct {
	Nodes GatewayNodes `toml:"nodes,omitempty"`
}

// GatewayNodes is [gateway.nodes].
type GatewayNodes struct {
	Commands NodeCommandPolicy `toml:"commands,omitempty"`
}

// NodeCommandPolicy decides which advertised node commands this runtime invokes: every
// command that is not dangerous unless denied; a dangerous one (codex.cli.session.resume)
// only when allowed explicitly. A deny always wins.
type NodeCommandPolicy struct {
	Allow []string `toml:"allow,omitempty"`
	Deny  []string `toml:"deny,omitempty"`
}

// Allows reports whether the policy lets this runtime invoke command.
func (p NodeCommandPolicy) Allows(command string) bool {
	if slices.Contains(p.Deny, command) {
		return false
	}
	if api.DangerousNodeCommand(command) {
		return slices.Contains(p.Allow, command)
	}
	return api.KnownNodeCommand(command)
}

// MaxNodes bounds the paired nodes: each is listed on every catalog call.
const MaxNodes = 32

// NodeAdvertised is what this runtime advertises as a node.
func (c *Config) NodeAdvertised() []string {
	if len(c.Node.Commands) == 0 {
		return slices.Clone(api.NodeCommands)
	}
	out := make([]string, 0, len(c.Node.Commands))
	for _, name := range api.NodeCommands {
		if slices.Contains(c.Node.Commands, name) {
			out = append(out, name)
		}
	}
	return out
}

// NodeNames lists the paired nodes in order.
func (c *Config) NodeNames() []string {
	names := make([]string, 0, len(c.Nodes))
	for n := range c.Nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NodeHostPrefix starts the catalog host id of a paired node.
const NodeHostPrefix = api.NodeHostPrefix

func (c *Config) validateNodes() error {
	known := strings.Join(api.NodeCommands, ", ")
	for _, cmd := range c.Node.Commands {
		if !api.KnownNodeCommand(cmd) {
			return model.Errorf(model.CodeInvalidArgument, "use commands from "+known, "config: node.commands has an unknown command %q", cmd)
		}
	}
	for _, list := range [][]string{c.Gateway.Nodes.Commands.Allow, c.Gateway.Nodes.Commands.Deny} {
		for _, cmd := range list {
			if !api.KnownNodeCommand(cmd) {
				return model.Errorf(model.CodeInvalidArgument, "use commands from "+known, "config: gateway.nodes.commands has an unknown command %q", cmd)
			}
		}
	}
	if len(c.Nodes) > MaxNodes {
		return model.Errorf(model.CodeInvalidArgument, "pair at most 32 nodes", "config: %d paired nodes", len(c.Nodes))
	}
	for name, n := range c.Nodes {
		if !ValidName(name) {
			return model.Errorf(model.CodeInvalidArgument, "node names are lowercase letters, digits, - and _", "config: invalid node name %q", name)
		}
		if host, port, err := net.SplitHostPort(n.Address); err != nil || host == "" || port == "" {
			return model.Errorf(model.CodeInvalidArgument, "set address = \"HOST:PORT\" of the node's `codexhost serve --listen`", "config: node %q has no valid address", name)
		}
		if len(n.Token) < 32 || strings.ContainsAny(n.Token, " \t\r\n") {
			return model.Errorf(model.CodeInvalidArgument, "pair it again with the token `codexhost node allow` printed on the node", "config: node %q has no valid token", name)
		}
	}
	for name, cl := range c.Clients {
		if cl.Node && (len(cl.Scopes) > 0 || cl.AllowRawTranscripts || cl.AllowWriteControls) {
			return model.Errorf(model.CodeInvalidArgument, "a node client has only the node methods: remove its scopes and allow* keys",
				"config: client %q is a node client with operator rights", name)
		}
	}
	return nil
}

// AddNodeClient creates the token a gateway pairs with (shown once). Making it is how this
// machine opts in to sharing its Codex sessions' metadata with that gateway.
func (c *Config) AddNodeClient(name string) (string, error) {
	if err := RefuseReservedName(name); err != nil {
		return "", err
	}
	token, err := c.AddClient(name, Grant{})
	if err != nil {
		return "", err
	}
	cl := c.Clients[name]
	cl.Node = true
	c.Clients[name] = cl
	return token, nil
}

// PairNode records a node reached at address with token; an existing pairing is replaced.
func (c *Config) PairNode(name, address, token string) error {
	if c.Nodes == nil {
		c.Nodes = map[string]Node{}
	}
	old, had := c.Nodes[name]
	c.Nodes[name] = Node{Address: address, Token: strings.TrimSpace(token)}
	if err := c.validateNodes(); err != nil {
		if had {
			c.Nodes[name] = old
		} else {
			delete(c.Nodes, name)
		}
		return err
	}
	return nil
}
