package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// Codex's legacy sandbox modes let a thread's commands read the whole disk, the codexhost
// home and Codex's credentials included. A per-thread permission profile with filesystem
// rules (enforced by codex 0.169.0, read denies included) keeps the same mode and makes the
// secret paths unreadable. The profile replaces thread/start's sandbox parameter, which
// would turn it off. A full-access thread has no sandbox for rules to live in.

// threadProfile is the permission profile codexhost defines on each thread it starts.
const threadProfile = "codexhost_thread"

// confine turns params' sandbox (or the configured default) into the permission profile
// that hides n.opts.Hide; it returns the mode the thread runs in and whether it has the
// network.
func (n *Native) confine(ctx context.Context, c *appserver.Client, params *appserver.ThreadStartParams) (string, bool, error) {
	mode := params.Sandbox
	if n.opts.Hide == nil {
		return mode, false, nil
	}
	var network bool
	if mode == "" || mode == SandboxWrite {
		cs, err := appserver.On(c).ConfigRead(ctx, params.Cwd)
		if err != nil {
			return "", false, nativeMapErr(err, "")
		}
		if mode == "" {
			mode = cs.SandboxMode
		}
		network = mode == SandboxWrite && cs.WorkspaceWrite != nil && cs.WorkspaceWrite.NetworkAccess
	}
	switch mode {
	case SandboxFull:
		params.Sandbox = mode
		return mode, true, nil
	case SandboxWrite:
	default:
		mode = SandboxReadOnly // Codex's own default, and the reading of anything unknown
	}
	params.Sandbox = ""
	params.Config = withProfile(params.Config, profileRules(mode, network, params.Cwd, n.opts.Hide()))
	return mode, network, nil
}

// profileRules is the profile of a thread in mode: the built-in profile of that mode, with
// every hidden path that exists (and does not hold the cwd) unreadable.
func profileRules(mode string, network bool, cwd string, hide []string) map[string]any {
	fs := map[string]any{}
	for _, h := range hide {
		real, err := filepath.EvalSymlinks(h)
		if err != nil || within(cwd, real) {
			continue
		}
		fs[real] = "none"
	}
	p := map[string]any{"extends": ":read-only", "filesystem": fs}
	if mode == SandboxWrite {
		p["extends"] = ":workspace"
	}
	if network {
		p["network"] = map[string]any{"enabled": true}
	}
	return p
}

func withProfile(cfg map[string]any, profile map[string]any) map[string]any {
	out := make(map[string]any, len(cfg)+2)
	for k, v := range cfg {
		out[k] = v
	}
	out["default_permissions"] = threadProfile
	out["permissions"] = map[string]any{threadProfile: profile}
	return out
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Secrets are the paths no native thread's commands may read (Hide): what the codexhost home
// holds but its socket, and of each Codex home the credentials, every thread's sessions and
// the state databases. The rest of a Codex home (skills, config) stays readable. The socket
// stays, for a thread whose sandbox allows local connections uses it to reach the runtime
// (as its own thread's agent).
func Secrets(home, socket string, codexHomes []string) []string {
	var out []string
	if ents, err := os.ReadDir(home); err == nil {
		for _, e := range ents {
			if e.Name() != socket {
				out = append(out, filepath.Join(home, e.Name()))
			}
		}
	}
	for _, home := range codexHomes {
		for _, name := range []string{"auth.json", "sessions", "archived_sessions", "history.jsonl", "log"} {
			out = append(out, filepath.Join(home, name))
		}
		dbs, _ := filepath.Glob(filepath.Join(home, "*.sqlite*"))
		out = append(out, dbs...)
	}
	return out
}
