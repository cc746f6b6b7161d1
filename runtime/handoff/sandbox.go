package handoff

import (
	"net/url"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
)

// Sandbox modes, as thread/start names them.
const (
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
)

// Sandbox is what a task's thread may touch: read-only without write or create_artifact;
// otherwise workspace-write with the project directory (the thread's cwd) as the only writable
// root, /tmp and $TMPDIR excluded, and no network unless a confirmed high-risk task has it.
type Sandbox struct {
	Mode    string `json:"mode"`
	Dir     string `json:"dir"`
	Network bool   `json:"network"`
}

// DeriveSandbox derives the sandbox of a handoff run in dir. confirmedHigh grants the network
// to a high-risk handoff that the operator confirmed; nothing else ever gets it.
func DeriveSandbox(h model.Handoff, dir string, confirmedHigh bool) Sandbox {
	if !h.Writes() {
		return Sandbox{Mode: SandboxReadOnly, Dir: dir}
	}
	return Sandbox{Mode: SandboxWorkspaceWrite, Dir: dir, Network: confirmedHigh && h.RiskLevel == model.RiskHigh}
}

// threadConfig is the per-thread configuration of thread/start for this sandbox.
func (s Sandbox) threadConfig() map[string]any {
	if s.Mode != SandboxWorkspaceWrite {
		return nil
	}
	return map[string]any{"sandbox_workspace_write": map[string]any{
		"writable_roots":         []string{},
		"network_access":         s.Network,
		"exclude_slash_tmp":      true,
		"exclude_tmpdir_env_var": true,
	}}
}

// Provider is a provider profile applied to a task's thread.
type Provider struct {
	Name    string
	Profile config.HandoffProvider
}

// providerPrefix names the per-thread model provider codexhost defines for a profile.
const providerPrefix = "codexhost_"

// apply adds the profile to a thread/start request: the model, and for an OpenAI-compatible or
// sub2api endpoint a model provider of its own. Only the env key's name is passed: Codex reads
// the key from the App Server's environment.
func (p Provider) apply(st *ThreadSpec) {
	if p.Name == "" {
		return
	}
	st.Model = p.Profile.Model
	if p.Profile.EffectiveKind() == config.ProviderCodex {
		return
	}
	id := providerPrefix + p.Name
	def := map[string]any{"name": id, "base_url": p.Profile.BaseURL, "wire_api": "responses"}
	if p.Profile.EnvKey != "" {
		def["env_key"] = p.Profile.EnvKey
	}
	if st.Config == nil {
		st.Config = map[string]any{}
	}
	st.Config["model_providers"] = map[string]any{id: def}
	st.ModelProvider = id
}

// Trace is what the trace keeps of a profile: kind, base URL host, model and env key name.
func (p Provider) Trace() map[string]any {
	if p.Name == "" {
		return nil
	}
	host := ""
	if u, err := url.Parse(p.Profile.BaseURL); err == nil {
		host = u.Hostname()
	}
	return map[string]any{"provider": p.Name, "kind": p.Profile.EffectiveKind(), "baseUrlHost": host, "model": p.Profile.Model, "envKey": p.Profile.EnvKey}
}

// TurnPolicy is the sandboxPolicy of turn/start for this sandbox, applied on top of the
// thread's: the project directory the only writable root, temporary directories excluded.
func (s Sandbox) TurnPolicy() map[string]any {
	if s.Mode != SandboxWorkspaceWrite {
		return map[string]any{"type": "readOnly", "networkAccess": false}
	}
	return map[string]any{"type": "workspaceWrite", "writableRoots": []string{s.Dir}, "networkAccess": s.Network,
		"excludeSlashTmp": true, "excludeTmpdirEnvVar": true}
}
