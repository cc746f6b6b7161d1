// Package handoff runs handoffs: validated, persisted task packages that a native Codex thread
// carries out inside an approved project root, with the sandbox derived from the allowed
// operations, high risk held for the operator, and the evidence (tests, changed files,
// artifacts, policy violations) gathered by codexhost itself after the turn.
package handoff

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
)

const rootsKey = "handoff.allowed_project_roots"

// Place is where a handoff runs, after policy resolution.
type Place struct {
	Dir  string // the project directory, symlinks resolved
	Root string // the allowed root that contains it, symlinks resolved
}

// Resolve finds the directory of a handoff (projectPath, else the named workspace) and checks
// it against the allowed roots. Every path is resolved with symlinks followed before it is
// compared, so neither `..` nor a symlink can leave a root.
func Resolve(pol config.Handoff, h model.Handoff) (Place, error) {
	roots, err := resolvedRoots(pol)
	if err != nil {
		return Place{}, err
	}
	given, field := h.ProjectPath, "projectPath"
	if h.Workspace != "" {
		ws, ok := pol.Workspaces[h.Workspace]
		if !ok {
			return Place{}, unknownWorkspace(pol, h.Workspace)
		}
		if given != "" && filepath.Clean(given) != filepath.Clean(ws) {
			return Place{}, model.Errorf(model.CodeInvalidArgument, "give projectPath or workspace, or both naming the same directory", "projectPath and workspace %q name different directories", h.Workspace)
		}
		given, field = ws, "workspace "+h.Workspace
	}
	dir, err := resolveDir(given, field)
	if err != nil {
		return Place{}, err
	}
	for _, r := range roots {
		if Inside(r, dir) {
			return Place{Dir: dir, Root: r}, nil
		}
	}
	return Place{}, model.Errorf(model.CodeFailedPrecondition, "use a project inside one of "+rootsKey+" (after symlinks are resolved), or add its root there in config.toml",
		"%s %s is outside every allowed project root", field, dir)
}

// unknownWorkspace names the configured workspaces, or says that none is.
func unknownWorkspace(pol config.Handoff, name string) error {
	names := make([]string, 0, len(pol.Workspaces))
	for n := range pol.Workspaces {
		names = append(names, n)
	}
	slices.Sort(names)
	hint := "use a workspace configured in [handoff.workspaces] (" + strings.Join(names, ", ") + "), or give projectPath"
	if len(names) == 0 {
		hint = "give projectPath, or name the workspace's directory under [handoff.workspaces] in config.toml (none is configured)"
	}
	return model.Errorf(model.CodeInvalidArgument, hint, "workspace %q is not configured", name).WithDetail("workspaces", names)
}

// resolvedRoots resolves the allowed roots. An entry that does not exist (a machine without
// that checkout, a root not created yet) or is not a directory is skipped, as RootWarnings
// tells `codexhost doctor`; it never denies the handoffs of the roots that do exist. An
// empty list, or one of which nothing exists, denies every handoff.
func resolvedRoots(pol config.Handoff) ([]string, error) {
	if len(pol.AllowedProjectRoots) == 0 {
		return nil, model.Errorf(model.CodeFailedPrecondition, "add the directories handoffs may run in to "+rootsKey+" in config.toml ([handoff] section)",
			"%s is empty: every handoff is denied", rootsKey)
	}
	out := make([]string, 0, len(pol.AllowedProjectRoots))
	for _, r := range pol.AllowedProjectRoots {
		if real, ok := rootDir(r); ok {
			out = append(out, real)
		}
	}
	if len(out) == 0 {
		return nil, model.Errorf(model.CodeFailedPrecondition, "create one of the directories or list existing ones in "+rootsKey+" in config.toml (`codexhost doctor` lists them)",
			"no entry of %s is an existing directory: every handoff is denied", rootsKey)
	}
	return out, nil
}

// rootDir is an allowed root resolved, when it is an existing directory.
func rootDir(r string) (string, bool) {
	real, err := filepath.EvalSymlinks(r)
	if err != nil {
		return "", false
	}
	st, err := os.Stat(real)
	return real, err == nil && st.IsDir()
}

// RootWarnings names each entry of allowed_project_roots that handoffs ignore because it is
// not an existing directory.
func RootWarnings(pol config.Handoff) []string {
	var out []string
	for i, r := range pol.AllowedProjectRoots {
		if _, ok := rootDir(r); !ok {
			out = append(out, fmt.Sprintf("%s[%d] (%s) is not an existing directory and is ignored; create it or remove it from config.toml", rootsKey, i, r))
		}
	}
	return out
}

// resolveDir resolves an absolute directory with symlinks followed.
func resolveDir(p, field string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", model.Errorf(model.CodeInvalidArgument, "give an absolute path", "%s %q is not an absolute path", field, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", model.Errorf(model.CodeInvalidArgument, "give an existing project directory", "%s %s does not exist", field, p)
	}
	if err != nil {
		return "", model.Errorf(model.CodeInvalidArgument, "give a project directory codexhost can read", "%s %s cannot be resolved: %v", field, p, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", model.Errorf(model.CodeInvalidArgument, "give a project directory codexhost can read", "%s %s: %v", field, p, err)
	}
	if !st.IsDir() {
		return "", model.Errorf(model.CodeInvalidArgument, "give the project's directory, not a file in it", "%s %s is a file, not a directory", field, p)
	}
	return real, nil
}

// Inside reports whether path lies in root (or is root). Both must already be resolved.
func Inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ResolveSkillRoot picks the skill root of a handoff: skillRoot when given, which must lie in
// an approved skill root, else the first approved one; "" when none is configured.
func ResolveSkillRoot(pol config.Handoff, given string) (string, error) {
	var approved []string
	for _, r := range pol.SkillRoots {
		if real, err := filepath.EvalSymlinks(r); err == nil {
			approved = append(approved, real)
		}
	}
	if given == "" {
		if len(approved) == 0 {
			return "", nil
		}
		return approved[0], nil
	}
	real, err := resolveDir(given, "skillRoot")
	if err != nil {
		return "", err
	}
	for _, r := range approved {
		if Inside(r, real) {
			return real, nil
		}
	}
	return "", model.Errorf(model.CodeFailedPrecondition, "use a skill root inside handoff.skill_roots in config.toml", "skillRoot %s is outside every approved skill root", real)
}
