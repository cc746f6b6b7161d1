package harness

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
