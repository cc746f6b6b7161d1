package threads

import (
	"context"
	"errors"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/store"
)

// Who may touch which thread. Reading and waiting on any id stay open to every caller (a
// user-given id is the authorisation to observe). Listing, sending and cancelling follow the
// thread's principal: the client that started it, or the root thread of its delegation tree.
//
//   - thread list shows a client only its own principal's threads, unless it holds
//     operator.read, so that no client can enumerate ids it was never given;
//   - send and cancel of a native session codexhost did not start need operator.write and
//     allowWriteControls: it is the user's own session, which is continued as a branch and
//     never resumed by a passive client;
//   - send and cancel of another principal's thread need operator.write;
//   - agents (processes the host started) keep send and cancel of the threads codexhost runs.

// PrincipalOf returns the principal of a thread codexhost runs ("client:NAME" or
// "thread:ROOT"); ok is false for a thread it did not start.
func (s *Service) PrincipalOf(id model.ThreadID) (principal string, ok bool, err error) {
	if _, err := s.deps.Store.Thread(id); errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	} else if err != nil {
		return "", false, err
	}
	top, client, err := s.treeTop(id)
	if err != nil {
		return "", false, err
	}
	if client != "" {
		return model.ClientRecipientPrefix + client, true, nil
	}
	return "thread:" + string(top), true, nil
}

// treeTop climbs a thread's origins to the top of its delegation tree: the thread a client
// started (client is its name) or one nobody delegated. The whole way, however deep: a
// bound on the steps would give a deep thread a principal of its own (an ancestor's id),
// locking its owner out of it. Records that loop stop where the loop closes.
func (s *Service) treeTop(id model.ThreadID) (top model.ThreadID, client string, err error) {
	seen := map[model.ThreadID]bool{}
	for cur := id; ; {
		seen[cur] = true
		o, err := s.deps.Store.Origin(cur)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return cur, "", nil
		case err != nil:
			return "", "", err
		case o.Kind == model.OriginClient:
			return cur, o.Client, nil
		case o.ParentThread == "" || seen[o.ParentThread]:
			return cur, "", nil
		}
		cur = o.ParentThread
	}
}

// listVisible is the filter thread.list applies for this caller, nil when it sees all.
func (s *Service) listVisible(env route.Env) func(model.ThreadID) bool {
	return s.VisibleTo(env.Caller, env.Grant())
}

// callerPrincipal is the principal a caller acts within: a client's own, or the principal of
// the thread an agent's token is bound to. "" is a caller bound to none: the runtime's own
// in-process callers.
func (s *Service) callerPrincipal(caller api.Caller) (string, error) {
	switch {
	case caller.Kind == api.CallerClient:
		return model.ClientRecipientPrefix + caller.Client, nil
	case caller.Kind == api.CallerRuntime && caller.Unbound:
		return unboundPrincipal, nil
	case caller.Kind == api.CallerRuntime && caller.Thread != "":
		p, ok, err := s.PrincipalOf(model.ThreadID(caller.Thread))
		if err != nil {
			return "", err
		}
		if !ok {
			// A thread codexhost does not know has no tree: it stands alone.
			return "thread:" + caller.Thread, nil
		}
		return p, nil
	}
	return "", nil
}

// unboundPrincipal is the principal of an agent that proves no thread: it owns nothing.
const unboundPrincipal = "unbound:"

// scoped reports whether a caller is held to a principal (only the runtime's own
// in-process callers are not).
func scoped(caller api.Caller) bool {
	return caller.Kind != api.CallerRuntime || caller.Thread != "" || caller.Unbound
}

// VisibleTo is which threads a caller may learn of without being given their ids (listing,
// events): nil for every thread. A client without operator.read, and an agent, see their
// own principal's; a runtime that does not hold the store (a follower) cannot tell, and
// shows them none.
func (s *Service) VisibleTo(caller api.Caller, grant config.Grant) func(model.ThreadID) bool {
	if caller.Kind == api.CallerClient && grant.Has(config.ScopeRead) {
		return nil
	}
	if caller.Kind != api.CallerClient && (caller.Kind != api.CallerRuntime || !scoped(caller)) {
		return nil
	}
	if s.deps.Store == nil {
		return func(model.ThreadID) bool { return false }
	}
	mine, err := s.callerPrincipal(caller)
	if err != nil || mine == "" {
		return func(model.ThreadID) bool { return false }
	}
	return func(id model.ThreadID) bool {
		p, ok, err := s.PrincipalOf(id)
		return err == nil && ok && p == mine
	}
}

// foreignSessionPolicy: a native session codexhost did not start.
func foreignSessionPolicy(id model.ThreadID) *route.Policy {
	return &route.Policy{Clients: &route.ClientRule{Scope: config.ScopeWrite, WriteControls: true},
		Hint: "continue it as a branch with `codexhost continue " + string(id) + "`: a session codexhost did not start is never resumed " +
			"for a client without operator.write and allowWriteControls"}
}

// otherPrincipalPolicy: a thread another client (or another tree) owns. Agents are not
// admitted: an agent acts within its thread's principal.
var otherPrincipalPolicy = &route.Policy{Clients: &route.ClientRule{Scope: config.ScopeWrite},
	AgentRefusal: "the thread named is not in your delegation tree",
	AgentHint:    "an agent acts within its own thread's principal: it may touch only the threads of its own delegation tree"}

// touchPolicy is what naming a thread needs beyond the method's policy, wherever naming it
// makes something happen to it: sending, cancelling, being notified, being a parent.
func (s *Service) touchPolicy(ctx context.Context, env route.Env, thread string) (*route.Policy, error) {
	id, err := ParseThread(thread)
	if err != nil {
		return nil, nil // the handler names the bad id
	}
	p, ok, err := s.PrincipalOf(id)
	if err != nil {
		return nil, err
	}
	if !ok {
		// An id no harness has is not found, whoever asks: it was given, so nothing is
		// disclosed, and a refusal would point at `continue`, which fails again.
		if _, err := s.Harness(ctx, id); model.IsCode(err, model.CodeThreadNotFound) {
			return nil, err
		}
		return foreignSessionPolicy(id), nil
	}
	mine, err := s.callerPrincipal(env.Caller)
	if err != nil {
		return nil, err
	}
	if mine != "" && p != mine {
		return otherPrincipalPolicy, nil
	}
	return nil, nil
}

// unboundPolicy refuses an agent that proves no thread what would make it some thread's.
var unboundPolicy = &route.Policy{Clients: &route.ClientRule{}, AgentRefusal: "your token names no thread",
	AgentHint: "run it from a thread's own tool shell or harness turn, whose " + "CODEXHOST_RUNTIME_TOKEN names the thread"}

// touchAll is the strictest touchPolicy of the named threads ("" skipped). The runtime's
// own in-process callers, bound to no thread, are not held to it.
func (s *Service) touchAll(ctx context.Context, env route.Env, threads ...string) (*route.Policy, error) {
	if !scoped(env.Caller) {
		return nil, nil
	}
	for _, t := range threads {
		if t == "" {
			continue
		}
		pol, err := s.touchPolicy(ctx, env, t)
		if err != nil {
			return nil, err
		}
		if pol != nil && pol.Check(env, "thread") != nil {
			return pol, nil // the first thread the caller may not touch decides
		}
	}
	return nil, nil
}

func (s *Service) cancelPolicy(ctx context.Context, env route.Env, p api.ThreadCancelParams) (*route.Policy, error) {
	return s.touchPolicy(ctx, env, p.Thread)
}

// sendPolicy: a turn of a node-bound supervised thread needs what continuing that node's
// threads needs (supervise.SendPolicy); every other send follows the thread's principal.
func (s *Service) sendPolicy(ctx context.Context, env route.Env, p api.ThreadSendParams) (*route.Policy, error) {
	if pol, err := s.opts.Supervised.SendPolicy(ctx, env, p); pol != nil || err != nil {
		return pol, err
	}
	return s.touchPolicy(ctx, env, p.Thread)
}

// watchPolicy: notifications to a client go only to that client asking for itself; a
// thread notified is sent a turn, so naming it is touching it.
func (s *Service) watchPolicy(ctx context.Context, env route.Env, p api.ThreadWatchParams) (*route.Policy, error) {
	name, ok := strings.CutPrefix(p.Notify, model.ClientRecipientPrefix)
	if err := notifyClientName(p.Notify); err != nil {
		return nil, err
	}
	if !ok {
		target := p.Notify
		if target == "" {
			target = agentHint(env.Caller, p.Caller).EnvThread
		}
		return s.touchAll(ctx, env, target)
	}
	return &route.Policy{Clients: &route.ClientRule{}, OnlyClient: name,
		ClientHint: "a client can only ask for notifications to itself: use --notify client:<your name> through your own token"}, nil
}

// notifyClientName refuses a client: recipient that names no possible client: an empty
// name would otherwise read as "no client rule" and notify nobody.
func notifyClientName(notify string) error {
	name, ok := strings.CutPrefix(notify, model.ClientRecipientPrefix)
	if !ok || config.ValidName(name) {
		return nil
	}
	return model.Errorf(model.CodeInvalidArgument, "pass --notify client:NAME with your own client's name (`codexhost client whoami` prints it), or a thread id",
		"--notify %q names no client", notify)
}

// delegatePolicy: the parent of a delegation is touched (it gets the child, and with
// --watch a notification turn), so it follows the same rule.
func (s *Service) delegatePolicy(ctx context.Context, env route.Env, p api.DelegateStartParams) (*route.Policy, error) {
	if env.Caller.Unbound {
		return unboundPolicy, nil
	}
	h := agentHint(env.Caller, p.Caller)
	return s.touchAll(ctx, env, h.ParentThread, h.EnvThread)
}

// agentHint is what a caller says of itself, corrected by what its token proves: an agent's
// own thread is the one its token is bound to, whatever its environment claims.
func agentHint(caller api.Caller, hint api.CallerHint) api.CallerHint {
	if caller.Kind == api.CallerRuntime && caller.Thread != "" {
		hint.EnvThread = caller.Thread
	}
	return hint
}

// TouchPolicy is touchPolicy for other capabilities (an approval of thread): what acting on
// the thread needs beyond the method's own policy.
func (s *Service) TouchPolicy(ctx context.Context, env route.Env, thread string) (*route.Policy, error) {
	return s.touchAll(ctx, env, thread)
}
