package route

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Policy says which callers may call a method. A kind left nil is refused.
type Policy struct {
	// Agents are the processes the host started (the runtime token).
	Agents *AgentRule
	// Clients are named external clients, the home's operator client among them.
	Clients *ClientRule
	// Nodes are paired gateways (node tokens).
	Nodes bool
	// OperatorOnly narrows Clients to the home's operator client, whose token owns the home.
	OperatorOnly bool
	// OnlyClient narrows Clients to one named client (a client acting on its own behalf),
	// refused with ClientHint.
	OnlyClient, ClientHint string
	// Hint overrides the fix named in a refusal of agents (an operator method, say).
	AgentHint string
	// AgentRefusal, when set, is why agents are refused, said in place of "not open to
	// agents": a method open to agents refused for what the call names (another principal's
	// thread) must not read as closed to them.
	AgentRefusal string
	// Hint, when set, is the fix named in every refusal of this policy.
	Hint string
}

// AgentRule admits agents, behind a config switch when Gate is set.
type AgentRule struct {
	// Gate returns a PERMISSION_DENIED naming the switch when the config keeps agents out.
	Gate func(cfg *config.Config, method string) error
}

// ClientRule admits clients holding a scope and flags.
type ClientRule struct {
	Scope          string // config.Scope*; "" admits every client
	WriteControls  bool   // allowWriteControls
	RawTranscripts bool   // allowRawTranscripts
}

// Shorthands for the policies most methods share.
var (
	// Everyone admits agents and clients (not nodes).
	Everyone = &Policy{Agents: &AgentRule{}, Clients: &ClientRule{}}
	// NodesOnly admits node tokens alone.
	NodesOnly = &Policy{Nodes: true}
)

// Operator admits clients with scope (and write controls when asked), no agents.
func Operator(scope string, writeControls bool) *Policy {
	return &Policy{Clients: &ClientRule{Scope: scope, WriteControls: writeControls},
		AgentHint: "ask the user to run it as an operator command"}
}

// Check refuses a caller the policy does not admit, with PERMISSION_DENIED and the fix.
func (p *Policy) Check(env Env, method string) error {
	err := p.check(env, method)
	if err != nil && p.Hint != "" {
		e := *model.AsError(err)
		e.Hint = p.Hint
		return &e
	}
	return err
}

func (p *Policy) check(env Env, method string) error {
	switch env.Caller.Kind {
	case api.CallerNode:
		if p.Nodes {
			return nil
		}
		return model.Errorf(model.CodePermissionDenied, "a node token calls node.describe and node.invoke only", "%s is not a node method", method)
	case api.CallerRuntime:
		return p.checkAgent(env, method)
	case api.CallerClient:
		return p.checkClient(env, method)
	}
	return model.Errorf(model.CodePermissionDenied, "authenticate with a runtime or client token", "%s needs an authenticated caller", method)
}

func (p *Policy) checkAgent(env Env, method string) error {
	if p.OnlyClient != "" {
		return model.Errorf(model.CodePermissionDenied, p.ClientHint, "client:%s is not the calling client", p.OnlyClient)
	}
	if p.Agents == nil {
		if p.AgentRefusal != "" {
			return model.Errorf(model.CodePermissionDenied, p.refusalHint(), "%s refused: %s", method, p.AgentRefusal)
		}
		return model.Errorf(model.CodePermissionDenied, p.refusalHint(), "%s is not open to agents", method)
	}
	if p.Agents.Gate != nil {
		return p.Agents.Gate(env.Config, method)
	}
	return nil
}

func (p *Policy) refusalHint() string {
	switch {
	case p.AgentHint != "":
		return p.AgentHint
	case p.Nodes:
		return "node methods are for paired gateways; make a node token with `codexhost node allow NAME`"
	}
	return "ask the user to run it"
}

func (p *Policy) checkClient(env Env, method string) error {
	name := env.Caller.Client
	if p.OperatorOnly && name != config.OperatorClient {
		return model.Errorf(model.CodePermissionDenied, "run it as the operator on the runtime's own machine",
			"%s is reserved for the home's operator client", method)
	}
	if p.OnlyClient != "" && name != p.OnlyClient {
		return model.Errorf(model.CodePermissionDenied, p.ClientHint, "client:%s is not the calling client", p.OnlyClient)
	}
	r := p.Clients
	if r == nil {
		if p.Nodes {
			return model.Errorf(model.CodePermissionDenied, p.refusalHint(), "%s needs a node token", method)
		}
		return model.Errorf(model.CodePermissionDenied, "", "%s is not open to clients", method)
	}
	grant := env.Grant()
	if r.Scope != "" && !grant.Has(r.Scope) {
		return model.Errorf(model.CodePermissionDenied, "grant it in config.toml: scopes = [\""+r.Scope+"\"] under [clients."+name+"]",
			"client %s lacks the %s scope for %s", name, r.Scope, method)
	}
	if r.RawTranscripts && !grant.AllowRawTranscripts {
		return model.Errorf(model.CodePermissionDenied, "set allowRawTranscripts = true under [clients."+name+"] in config.toml",
			"reading a session's transcript needs allowRawTranscripts (%s)", method)
	}
	if r.WriteControls && !grant.AllowWriteControls {
		return model.Errorf(model.CodePermissionDenied, "set allowWriteControls = true under [clients."+name+"] in config.toml",
			"client %s is not allowed write controls (%s)", name, method)
	}
	return nil
}
