// Package auth decides who a connection to the runtime API is, and the allowances of the
// principals the runtime itself vouches for.
package auth

import (
	"crypto/subtle"
	"errors"
	"os"
	"path/filepath"

	"github.com/codexhost/codexhost/internal/peercred"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Who a connection is. No token names the home's operator: on the home's Unix socket the
// operator is recognised by the kernel's word (the same user, and not a process below this
// runtime), so there is no operator secret to steal. Every process below the runtime is an
// agent whatever it presents: it must show the token of its thread (bound to that thread, so
// the runtime knows whose principal it acts for), and a client token shown from below is
// refused, so a client token a model read cannot be used from its shell. An agent token is
// refused from anywhere else, so one that leaves in a reply is worthless outside.

// operatorTokenFile is where earlier versions kept an operator token in the home; it is
// removed at start, since nothing accepts it any more.
const operatorTokenFile = "operator.token"

// Authenticator knows the runtime's token, its agents' tokens and the configured clients.
type Authenticator struct {
	RuntimeToken string          // the runtime's own, for callers inside this process
	Agents       *harness.Tokens // the tokens of agents, each bound to a thread
	// Config is config.toml, reread when it changed, so clients added with `codexhost client
	// add` work without a restart.
	Config func() *config.Config
}

// Peer decides who a connection is from its token and its peer.
func (h *Authenticator) Peer(token string, peer api.Peer) (api.Caller, error) {
	self := os.Getpid()
	cred, credErr := peer.Cred(func() []int { pids, _ := peercred.Descendants(self); return append(pids, self) })
	inside := credErr == nil && cred.Pid == self // this very process: the app, the tests
	below := false
	if credErr == nil && cred.Pid > 0 && !inside {
		var err error
		below, err = peercred.Descends(cred.Pid, self)
		if err != nil {
			credErr = err
		}
	}
	if id, ok := h.Agents.Thread(token); ok {
		if !below && !inside {
			return api.Caller{}, denied("an agent token works only in the processes codexhost started for its thread",
				"the runtime refused an agent token presented from outside its processes")
		}
		return api.Caller{Kind: api.CallerRuntime, Thread: string(id)}, nil
	}
	if h.Agents.IsProcess(token) {
		if !below && !inside {
			return api.Caller{}, denied("an agent token works only in the processes codexhost started",
				"the runtime refused an agent token presented from outside its processes")
		}
		return api.Caller{Kind: api.CallerRuntime, Unbound: true}, nil
	}
	if inside && token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(h.RuntimeToken)) == 1 {
		return api.Caller{Kind: api.CallerRuntime}, nil
	}
	if below || (credErr != nil && peer.Unix) {
		// Fail closed: a peer the kernel cannot vouch for is not taken for a client either.
		return api.Caller{}, denied("a process started by codexhost connects with the "+harness.EnvToken+" its thread was given",
			"the runtime refused a connection from a process it started (or could not tell): it is an agent, whatever token it shows")
	}
	if token == "" {
		return operatorByPeer(peer, cred, credErr)
	}
	cfg := h.Config()
	name, ok := cfg.MatchClient(token)
	switch {
	case !ok:
		return api.Caller{}, denied("use the token the runtime gave this process ("+harness.EnvToken+") or a client token configured in the runtime's config.toml",
			"the runtime rejected the token")
	case name == config.OperatorClient:
		return api.Caller{}, denied("run the command as the same user on this machine, with no token: the home's socket recognises its operator",
			"the home's operator is not a token: the token of client %q is no longer accepted", name)
	case cfg.Clients[name].Node:
		return api.Caller{Kind: api.CallerNode, Client: name}, nil
	}
	return api.Caller{Kind: api.CallerClient, Client: name}, nil
}

// operatorByPeer admits a token-less connection on the Unix socket from the home's user.
func operatorByPeer(peer api.Peer, cred peercred.Cred, credErr error) (api.Caller, error) {
	switch {
	case !peer.Unix:
		return api.Caller{}, denied("pass --client-token (create one with `codexhost client add NAME`); the operator connects on the home's socket",
			"a connection without a token is accepted only on the home's Unix socket")
	case errors.Is(credErr, peercred.ErrUnsupported):
		return api.Caller{}, denied("use a client token (`codexhost client add NAME`) on this platform",
			"this platform cannot tell who is on the other end of the socket")
	case credErr != nil:
		return api.Caller{}, denied("retry; if it persists, check that /proc is mounted", "cannot tell who is connecting: %v", credErr)
	case cred.Uid != os.Getuid():
		return api.Caller{}, denied("run it as the user who runs the runtime",
			"user %d is not the runtime's user", cred.Uid)
	}
	return api.Caller{Kind: api.CallerClient, Client: config.OperatorClient}, nil
}

func denied(hint, format string, args ...any) error {
	return model.Errorf(model.CodePermissionDenied, hint, format, args...)
}

// Token accepts a token alone, as a handler without a peer would: used where no connection
// exists (in-process checks). The server authenticates connections with Peer.
func (h *Authenticator) Token(token string) (api.Caller, bool) {
	if token == "" {
		return api.Caller{}, false
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(h.RuntimeToken)) == 1 {
		return api.Caller{Kind: api.CallerRuntime}, true
	}
	if id, ok := h.Agents.Thread(token); ok {
		return api.Caller{Kind: api.CallerRuntime, Thread: string(id)}, true
	}
	cfg := h.Config()
	if name, ok := cfg.MatchClient(token); ok && name != config.OperatorClient {
		if cfg.Clients[name].Node {
			return api.Caller{Kind: api.CallerNode, Client: name}, true
		}
		return api.Caller{Kind: api.CallerClient, Client: name}, true
	}
	return api.Caller{}, false
}

// RemoveOperatorTokenFile deletes the operator token earlier versions kept in the home.
func RemoveOperatorTokenFile(home string, logf func(format string, args ...any)) {
	path := filepath.Join(home, operatorTokenFile)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		logf("remove the old operator token %s: %v", path, err)
	}
}
