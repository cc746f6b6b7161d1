package handoff

import (
	"net/url"
	"path/filepath"
	"slices"

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

// profileName is the Codex permission profile codexhost defines on each task's thread.
const profileName = "codexhost_task"

// threadConfig is the per-thread configuration of thread/start: a Codex permission profile,
// whose filesystem rules Codex (0.169.0) enforces with deny reads included, where its legacy
// read-only sandbox reads the whole disk. It extends :read-only, or :workspace (the cwd
// writable, temporary directories not), and makes every directory of hide unreadable: the
// codexhost home, the Codex homes. A thread/start sandbox would turn the profile off, so the
// thread is started with none; each turn's sandboxPolicy still narrows it (and grants the
// network to a confirmed high-risk turn).
func (s Sandbox) threadConfig(hide []string) map[string]any {
	var dirs []string
	for _, h := range hide {
		real, err := filepath.EvalSymlinks(h)
		if err != nil || Inside(real, s.Dir) {
			continue // nothing there; or it holds the project, which the task must read
		}
		dirs = append(dirs, real)
	}
	fs := map[string]any{}
	for _, d := range outermost(dirs) {
		fs[d] = "none"
	}
	extends := ":read-only"
	if s.Mode == SandboxWorkspaceWrite {
		extends = ":workspace"
		fs[":slash_tmp"], fs[":tmpdir"] = "read", "read"
	}
	return map[string]any{"default_permissions": profileName,
		"permissions": map[string]any{profileName: map[string]any{"extends": extends, "filesystem": fs}}}
}

// outermost drops each directory that lies in another one of dirs: hiding the outer one hides
// it, and Codex's sandbox cannot make the inner mount point inside the outer, read-only one
// (a Codex home kept in the codexhost home failed every task's start).
func outermost(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		covered := false
		for _, o := range dirs {
			if o != d && Inside(o, d) {
				covered = true
				break
			}
		}
		if !covered && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
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
		st.HideEnv = append(st.HideEnv, p.Profile.EnvKey)
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
