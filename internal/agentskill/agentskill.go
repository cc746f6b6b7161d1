// Package agentskill installs the codexhost-delegation skill into the folders coding agents
// read skills from (~/.agents/skills, ~/.claude/skills; Codex also reads $CODEX_HOME/skills), so that an agent
// knows when and how to delegate through codexhost. It writes only folders the user owns
// that no one else can write, never through a symlink, and never over a file the user changed.
package agentskill

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/internal/atomicfile"
	"github.com/codexhost/codexhost/model"
)

// Name is the skill's name and folder.
const Name = "codexhost-delegation"

//go:embed skill.md
var content []byte

// Content is the SKILL.md this build installs.
func Content() []byte { return content }

// manifestFile records what was installed, so that a later run can tell our older copy from
// a copy the user changed.
const manifestFile = ".codexhost-skill.json"

type manifest struct {
	V      int    `json:"v"`
	SHA256 string `json:"sha256"`
}

// States of an installed skill.
const (
	StateAbsent   = "absent"   // not installed
	StateCurrent  = "current"  // this build's skill
	StateOutdated = "outdated" // ours, from another build: install updates it
	StateChanged  = "changed"  // the user changed it (or it is not ours): left alone
)

// RootStatus is the skill's state in one root.
type RootStatus struct {
	Root   string `json:"root"`
	Path   string `json:"path"`
	State  string `json:"state"`
	Action string `json:"action,omitempty"` // what install or uninstall did: installed, updated, conflict, removed, none
	Moved  string `json:"movedTo,omitempty"`
}

// Roots are the skill folders the skill is installed in: ~/.agents/skills, which Codex and
// other agents read, and ~/.claude/skills. Codex reads $CODEX_HOME/skills as well, so a copy
// there too would be listed (and offered to the model) twice; home is $HOME.
func Roots(home string) []string {
	return []string{filepath.Join(home, ".agents", "skills"), filepath.Join(home, ".claude", "skills")}
}

// LegacyRoots are folders earlier builds installed the skill in, and a copy of ours there is
// moved aside by install: $CODEX_HOME/skills (default ~/.codex/skills).
func LegacyRoots(home, codexHome string) []string {
	if codexHome == "" {
		codexHome = filepath.Join(home, ".codex")
	}
	return []string{filepath.Join(codexHome, "skills")}
}

// InstallOnce installs the skill in roots and moves ours aside in legacy (a copy the user
// changed stays), so every reader finds it once. Legacy roots that do not exist are left
// alone.
func InstallOnce(roots, legacy []string, now time.Time) ([]RootStatus, error) {
	var present []string
	for _, root := range legacy {
		if _, err := os.Lstat(filepath.Join(root, Name)); err == nil {
			present = append(present, root)
		}
	}
	// The legacy roots too are checked before anything is written: a refusal says nothing was.
	for _, root := range present {
		if err := CheckRoot(root); err != nil {
			return nil, err
		}
	}
	out, err := Install(roots)
	if err != nil || len(present) == 0 {
		return out, err
	}
	moved, err := Uninstall(present, now)
	return append(out, moved...), err
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// Status reports the skill's state in each root without changing anything.
func Status(roots []string) ([]RootStatus, error) {
	out := make([]RootStatus, 0, len(roots))
	for _, root := range roots {
		st, err := stateOf(root)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

func stateOf(root string) (RootStatus, error) {
	dir := filepath.Join(root, Name)
	st := RootStatus{Root: root, Path: filepath.Join(dir, "SKILL.md"), State: StateAbsent}
	have, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	} else if err != nil {
		return st, model.Errorf(model.CodeFailedPrecondition, "check the file's permissions", "read %s: %v", st.Path, err)
	}
	var m manifest
	b, _ := os.ReadFile(filepath.Join(dir, manifestFile))
	ours := json.Unmarshal(b, &m) == nil && m.SHA256 == digest(have)
	switch {
	case digest(have) == digest(content):
		st.State = StateCurrent
	case ours:
		st.State = StateOutdated
	default:
		st.State = StateChanged
	}
	return st, nil
}

// CheckRoot refuses a root when the skill's folder, the root or the folder holding the root
// ($CODEX_HOME, ~/.agents, ~/.claude) is a symlink, is not a folder, is not owned by the
// user, or may be written by group or others. Missing ones are created 0700 later.
func CheckRoot(root string) error {
	for _, p := range []string{filepath.Join(root, Name), root, filepath.Dir(root)} {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			return refuse(p, err.Error())
		}
		switch sys, _ := fi.Sys().(*syscall.Stat_t); {
		case fi.Mode()&fs.ModeSymlink != 0:
			return refuse(p, "it is a symlink")
		case !fi.IsDir():
			return refuse(p, "it is not a folder")
		case sys != nil && int(sys.Uid) != os.Getuid():
			return refuse(p, "it is owned by another user")
		case fi.Mode().Perm()&0o022 != 0:
			return refuse(p, fmt.Sprintf("group or others may write it (mode %04o)", fi.Mode().Perm()))
		}
	}
	return nil
}

func refuse(path, why string) error {
	return model.Errorf(model.CodeFailedPrecondition, "fix the folder (chmod go-w, or replace the symlink with a folder you own) and run it again; nothing was written",
		"refusing skill folder %s: %s", path, why).WithDetail("path", path)
}

// Install writes the skill into every root: new or ours-but-older copies are (re)written,
// a copy the user changed is reported as a conflict and left alone. Every root is checked
// before anything is written, so a refused root means nothing was written anywhere.
func Install(roots []string) ([]RootStatus, error) {
	return eachRoot(roots, func(root string, st *RootStatus) error {
		switch st.State {
		case StateCurrent:
			st.Action = "none"
		case StateChanged:
			st.Action = "conflict"
		default:
			st.Action = map[string]string{StateAbsent: "installed", StateOutdated: "updated"}[st.State]
			if err := write(filepath.Join(root, Name)); err != nil {
				return err
			}
			st.State = StateCurrent
		}
		return nil
	})
}

// eachRoot checks every root first, then acts on each with its state; on a failed act it
// returns the roots done so far.
func eachRoot(roots []string, act func(root string, st *RootStatus) error) ([]RootStatus, error) {
	for _, root := range roots {
		if err := CheckRoot(root); err != nil {
			return nil, err
		}
	}
	out := make([]RootStatus, 0, len(roots))
	for _, root := range roots {
		st, err := stateOf(root)
		if err != nil {
			return nil, err
		}
		if err := act(root, &st); err != nil {
			return out, err
		}
		out = append(out, st)
	}
	return out, nil
}

func write(dir string) error {
	// Each missing folder is created 0700; existing ones were checked by CheckRoot.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return model.Errorf(model.CodeFailedPrecondition, "check the folder's permissions", "create %s: %v", dir, err)
	}
	m, _ := json.Marshal(manifest{V: 1, SHA256: digest(content)})
	// The manifest first: a crash between the two leaves a SKILL.md that reads as ours-older
	// or current, never a user's change overwritten later.
	if err := atomicWrite(filepath.Join(dir, manifestFile), m); err != nil {
		return err
	}
	return atomicWrite(filepath.Join(dir, "SKILL.md"), content)
}

// atomicWrite replaces path with b (0600, synced, renamed) and names the fix when it fails.
func atomicWrite(path string, b []byte) error {
	if err := atomicfile.Write(path, b); err != nil {
		return model.Errorf(model.CodeFailedPrecondition, "check the folder's permissions and free space", "write %s: %v", path, err)
	}
	return nil
}

// Uninstall moves our copy aside (out of the skill's folder, so no agent reads it) in every
// root; a copy the user changed is a conflict and stays.
func Uninstall(roots []string, now time.Time) ([]RootStatus, error) {
	return eachRoot(roots, func(root string, st *RootStatus) error {
		switch st.State {
		case StateAbsent:
			st.Action = "none"
		case StateChanged:
			st.Action = "conflict"
		default:
			dir := filepath.Join(root, Name)
			aside := filepath.Join(root, fmt.Sprintf(".%s.removed-%s", Name, now.UTC().Format("20060102T150405.000000000")))
			if err := os.Rename(dir, aside); err != nil {
				return model.Errorf(model.CodeFailedPrecondition, "check the folder's permissions", "move %s aside: %v", dir, err)
			}
			// A folder scan that looks into hidden folders must not find a skill there either.
			if err := os.Rename(filepath.Join(aside, "SKILL.md"), filepath.Join(aside, "SKILL.md.removed")); err != nil {
				return model.Errorf(model.CodeFailedPrecondition, "check the folder's permissions", "move %s aside: %v", dir, err)
			}
			st.State, st.Action, st.Moved = StateAbsent, "removed", aside
		}
		return nil
	})
}
