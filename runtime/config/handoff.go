package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
)

// Handoff is the policy of handoffs and their tasks ([handoff] in config.toml). Every path
// here is resolved with symlinks followed when a handoff is checked (runtime/handoff), never
// compared as a string. An empty or missing allowed_project_roots denies every handoff.
type Handoff struct {
	AllowedProjectRoots []string                   `toml:"allowed_project_roots,omitempty"`
	Workspaces          map[string]string          `toml:"workspaces,omitempty"`
	SkillRoots          []string                   `toml:"skill_roots,omitempty"`
	DenyGlobs           []string                   `toml:"deny_globs,omitempty"`
	Providers           map[string]HandoffProvider `toml:"providers,omitempty"`
	// AutoStartMaxRisk is the highest risk a task starts at without the operator's
	// confirmation; the risk is the declared level raised to the floor of what the handoff
	// asks (runtime/handoff). Empty means DefaultAutoStartMaxRisk.
	AutoStartMaxRisk string `toml:"auto_start_max_risk,omitempty"`
	// MaxApproval is the widest approval policy a task may ask for (model.ApprovalWithin's
	// order: never < untrusted < on-request). Empty means never: a task's commands never
	// leave its sandbox, and no task asks a person.
	MaxApproval string `toml:"max_approval,omitempty"`
}

// MaxApprovalOrNever is max_approval with its default.
func (h Handoff) MaxApprovalOrNever() string {
	if h.MaxApproval == "" {
		return model.ApprovalNever
	}
	return h.MaxApproval
}

// DefaultAutoStartMaxRisk starts only read-only handoffs without test commands at once.
const DefaultAutoStartMaxRisk = model.RiskLow

// AutoStartMax is auto_start_max_risk with its default.
func (h Handoff) AutoStartMax() string {
	if h.AutoStartMaxRisk == "" {
		return DefaultAutoStartMaxRisk
	}
	return h.AutoStartMaxRisk
}

// HandoffProvider is a model provider profile a task may run with. EnvKey names the
// environment variable holding the key; the key itself is never written anywhere.
type HandoffProvider struct {
	Kind    string `toml:"kind,omitempty"` // ProviderCodex (default), ProviderOpenAICompatible, ProviderSub2API
	BaseURL string `toml:"base_url,omitempty"`
	EnvKey  string `toml:"env_key,omitempty"`
	Model   string `toml:"model,omitempty"`
}

// ProviderEnvKeys are the env_key names of the provider profiles, sorted: the variables the
// native App Server reads besides its whitelist (and no thread's shell may see).
func (h Handoff) ProviderEnvKeys() []string {
	var out []string
	for _, p := range h.Providers {
		if p.EnvKey != "" && !slices.Contains(out, p.EnvKey) {
			out = append(out, p.EnvKey)
		}
	}
	slices.Sort(out)
	return out
}

// Provider kinds.
const (
	ProviderCodex            = "codex"
	ProviderOpenAICompatible = "openai-compatible"
	ProviderSub2API          = "sub2api"
)

// ProviderKinds are the known provider kinds.
var ProviderKinds = []string{ProviderCodex, ProviderOpenAICompatible, ProviderSub2API}

// EffectiveKind is the kind with its default.
func (p HandoffProvider) EffectiveKind() string {
	if p.Kind == "" {
		return ProviderCodex
	}
	return p.Kind
}

// Limits of the [handoff] section.
const (
	MaxHandoffRoots    = 64
	MaxHandoffGlobs    = 64
	MaxHandoffGlobLen  = 256
	MaxHandoffModelLen = 128
)

var (
	envKeyPattern    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]{0,127}$`) })
	workspacePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })
)

func (c *Config) validateHandoff() error {
	hc := c.Handoff
	for _, l := range []struct {
		key   string
		paths []string
	}{{"handoff.allowed_project_roots", hc.AllowedProjectRoots}, {"handoff.skill_roots", hc.SkillRoots}} {
		if err := checkAbsList(l.key, l.paths); err != nil {
			return err
		}
	}
	for name, p := range hc.Workspaces {
		if !workspacePattern().MatchString(name) {
			return model.Errorf(model.CodeInvalidArgument, "name workspaces with letters, digits, . _ - (at most 64)", "config: invalid workspace name %q in handoff.workspaces", name)
		}
		if !absPath(p) {
			return model.Errorf(model.CodeInvalidArgument, "give the workspace as an absolute path", "config: handoff.workspaces.%s is not an absolute path", name)
		}
	}
	if len(hc.DenyGlobs) > MaxHandoffGlobs {
		return model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("list at most %d deny globs", MaxHandoffGlobs), "config: handoff.deny_globs has %d entries", len(hc.DenyGlobs))
	}
	for i, g := range hc.DenyGlobs {
		if strings.TrimSpace(g) == "" || len(g) > MaxHandoffGlobLen || strings.ContainsRune(g, 0) {
			return model.Errorf(model.CodeInvalidArgument, "give globs such as **/.env or **/*.pem (at most 256 bytes)", "config: handoff.deny_globs[%d] is not a usable glob", i)
		}
	}
	if hc.AutoStartMaxRisk != "" && !slices.Contains(model.HandoffRisks, hc.AutoStartMaxRisk) {
		return model.Errorf(model.CodeInvalidArgument, "use auto_start_max_risk = "+strings.Join(model.HandoffRisks, ", ")+" (default low)",
			"config: handoff.auto_start_max_risk %q is not a risk level", hc.AutoStartMaxRisk)
	}
	if a := hc.MaxApproval; a != "" && !slices.Contains(model.ApprovalPolicies, a) {
		return model.Errorf(model.CodeInvalidArgument, "use max_approval = "+strings.Join(model.ApprovalPolicies, ", ")+" (default never)",
			"config: handoff.max_approval %q is not an approval policy", a)
	}
	for name, p := range hc.Providers {
		if err := validateProvider(name, p); err != nil {
			return err
		}
	}
	return nil
}

func validateProvider(name string, p HandoffProvider) error {
	key := "handoff.providers." + name
	if !ValidName(name) {
		return model.Errorf(model.CodeInvalidArgument, "provider names are lowercase letters, digits, - and _", "config: invalid provider name %q", name)
	}
	if !slices.Contains(ProviderKinds, p.EffectiveKind()) {
		return model.Errorf(model.CodeInvalidArgument, "use kind = "+strings.Join(ProviderKinds, ", "), "config: %s.kind %q is unknown", key, p.Kind)
	}
	if p.BaseURL != "" || p.EffectiveKind() != ProviderCodex {
		u, err := url.Parse(p.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			// The value is not echoed: a URL may carry a credential.
			return model.Errorf(model.CodeInvalidArgument, "give base_url as http(s)://host[:port]/path without credentials", "config: %s.base_url is not a usable URL", key)
		}
	}
	if p.EnvKey != "" && !envKeyPattern().MatchString(p.EnvKey) {
		return model.Errorf(model.CodeInvalidArgument, "env_key is the NAME of an environment variable (A-Z, 0-9, _), never the key itself", "config: %s.env_key is not a variable name", key)
	}
	if len(p.Model) > MaxHandoffModelLen || strings.ContainsAny(p.Model, "\x00\n") {
		return model.Errorf(model.CodeInvalidArgument, "give a model name of at most 128 characters", "config: %s.model is not a usable model name", key)
	}
	return nil
}

func checkAbsList(key string, paths []string) error {
	if len(paths) > MaxHandoffRoots {
		return model.Errorf(model.CodeInvalidArgument, fmt.Sprintf("list at most %d paths", MaxHandoffRoots), "config: %s has %d entries", key, len(paths))
	}
	for i, p := range paths {
		if !absPath(p) {
			return model.Errorf(model.CodeInvalidArgument, "give each entry as an absolute path", "config: %s[%d] is not an absolute path", key, i)
		}
	}
	return nil
}

func absPath(p string) bool { return p != "" && filepath.IsAbs(p) && !strings.ContainsRune(p, 0) }
