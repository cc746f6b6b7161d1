package harness

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// What the tool shells of a native thread see. The App Server needs the model key and runs
// with no codexhost credential of its own; each thread's shells get, through Codex's
// shell_environment_policy (a per-thread config override), the App Server's environment
// without secrets plus that thread's own connection parameters. So the model's shell never
// reads the key (`env`), and an agent's token says which thread it acts for.

// toolShellHidden are excluded from every tool shell, besides Codex's own default excludes
// (names containing KEY, SECRET or TOKEN).
var toolShellHidden = []string{"OPENAI_*", "CODEX_API_KEY", "CODEXHOST_*", "*_API_KEY", "*PASSWORD*", "*CREDENTIAL*"}

// toolShellPolicy is the shell_environment_policy of a thread: vars (KEY=VALUE) are set for
// its shells after the excludes, hide names more variables to exclude (a provider's env_key).
func toolShellPolicy(vars []string, hide []string) map[string]any {
	set := map[string]any{}
	for _, kv := range vars {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				set[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	exclude := append(append([]string(nil), toolShellHidden...), hide...)
	return map[string]any{"inherit": "all", "ignore_default_excludes": false, "exclude": exclude, "set": set}
}

// withToolShell returns cfg (copied) with the thread's shell_environment_policy.
func withToolShell(cfg map[string]any, vars, hide []string) map[string]any {
	out := make(map[string]any, len(cfg)+1)
	for k, v := range cfg {
		out[k] = v
	}
	out["shell_environment_policy"] = toolShellPolicy(vars, hide)
	return out
}

// shellEnv gives a new thread's tool shells their connection parameters, with a token
// bound to the thread once bind names it.
func (n *Native) shellEnv(params *appserver.ThreadStartParams, cwd string) (bind func(model.ThreadID)) {
	conn := n.opts.Conn
	if conn.Tokens == nil {
		params.Config = withToolShell(params.Config, nil, n.opts.SecretEnv)
		return func(model.ThreadID) {}
	}
	token, bind := conn.Tokens.ForNew()
	params.Config = withToolShell(params.Config, conn.Vars(token), n.opts.SecretEnv)
	if n.opts.ThreadTools {
		params.Config = withThreadTools(params.Config, conn, token, cwd)
	}
	return bind
}

// resumeConfig is the config override of thread/resume: a thread loaded again (after an
// unload or a restart of the runtime) gets a token of this runtime.
func (n *Native) resumeConfig(id model.ThreadID, cwd string) map[string]any {
	conn := n.opts.Conn
	var cfg map[string]any
	if conn.Tokens == nil {
		cfg = withToolShell(nil, nil, n.opts.SecretEnv)
	} else {
		cfg = withToolShell(nil, conn.Vars(conn.TokenFor(id)), n.opts.SecretEnv)
		if n.opts.ThreadTools {
			cfg = withThreadTools(cfg, conn, conn.TokenFor(id), cwd)
		}
	}
	// The profile again, with the paths to hide as they are now.
	if pol, ok := n.PolicyOf(id); ok && n.opts.Hide != nil && pol.Sandbox != SandboxFull && cwd != "" {
		cfg = withProfile(cfg, profileRules(pol.Sandbox, pol.Network, cwd, n.opts.Hide()))
	}
	return cfg
}

func firstSet(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
