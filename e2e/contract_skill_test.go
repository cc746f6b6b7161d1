package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/agentskill"
	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/runtime/appserver"
)

type skillRoots struct {
	Skill string `json:"skill"`
	Roots []struct {
		Root, Path, State, Action string
		MovedTo                   string `json:"movedTo"`
	} `json:"roots"`
}

// skill runs `codexhost skill ARGS --json` with HOME and CODEX_HOME.
func skill(t *testing.T, home, codexHome string, args ...string) result {
	t.Helper()
	return run(t, home, []string{"HOME=" + home, "CODEX_HOME=" + codexHome}, append(append([]string{"skill"}, args...), "--json")...)
}

func skillStates(t *testing.T, r result) []string {
	t.Helper()
	var out skillRoots
	r.decode(t, &out)
	var states []string
	for _, root := range out.Roots {
		states = append(states, root.State+"/"+root.Action)
	}
	return states
}

// skill install writes the codexhost-delegation skill 0600 into folders 0700 in
// ~/.agents/skills and ~/.claude/skills, and moves aside the copy an earlier build left in
// $CODEX_HOME/skills (Codex reads both, and would list it twice); status tells current,
// ours-but-older and changed in all three; a copy the user changed is never overwritten (a
// conflict); uninstall moves ours aside and leaves the user's.
func TestSkillInstallStatusConflictUninstall(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	codexHome := filepath.Join(home, "codex-home")
	if got := skillStates(t, skill(t, home, codexHome, "status")); !slices.Equal(got, []string{"absent/", "absent/", "absent/"}) {
		t.Fatalf("status before install: %v", got)
	}
	// An earlier build's copy in $CODEX_HOME/skills.
	legacy := filepath.Join(codexHome, "skills", "codexhost-delegation")
	oldText := []byte("an older build's skill\n")
	writeOurs(t, legacy, oldText)
	if got := skillStates(t, skill(t, home, codexHome, "install")); !slices.Equal(got, []string{"current/installed", "current/installed", "absent/removed"}) {
		t.Fatalf("install: %v", got)
	}
	paths := []string{filepath.Join(home, ".agents", "skills"), filepath.Join(home, ".claude", "skills")}
	for _, root := range paths {
		dir := filepath.Join(root, "codexhost-delegation")
		for p, mode := range map[string]os.FileMode{root: 0o700, dir: 0o700, filepath.Join(dir, "SKILL.md"): 0o600} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != mode {
				t.Errorf("%s: %v, want mode %o", p, fi, mode)
			}
		}
		b, _ := os.ReadFile(filepath.Join(dir, "SKILL.md"))
		for _, want := range []string{"name: codexhost-delegation", "codexhost delegate --help", "delegationId", "threadId", "turnId", "deepLink", "status"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("SKILL.md lacks %q", want)
			}
		}
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the earlier copy in $CODEX_HOME/skills is still there: %v", err)
	}
	if got := skillStates(t, skill(t, home, codexHome, "install")); !slices.Equal(got, []string{"current/none", "current/none"}) {
		t.Errorf("second install: %v", got)
	}

	// The user edits one copy; an older copy of ours (its manifest matches) is updated.
	edited := filepath.Join(paths[0], "codexhost-delegation", "SKILL.md")
	if err := os.WriteFile(edited, []byte("my own notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeOurs(t, filepath.Join(paths[1], "codexhost-delegation"), oldText)
	if got := skillStates(t, skill(t, home, codexHome, "status")); !slices.Equal(got, []string{"changed/", "outdated/", "absent/"}) {
		t.Errorf("status after edits: %v", got)
	}
	if got := skillStates(t, skill(t, home, codexHome, "install")); !slices.Equal(got, []string{"changed/conflict", "current/updated"}) {
		t.Errorf("install over edits: %v", got)
	}
	if b, _ := os.ReadFile(edited); string(b) != "my own notes\n" {
		t.Errorf("install overwrote the user's copy: %q", b)
	}

	if got := skillStates(t, skill(t, home, codexHome, "uninstall")); !slices.Equal(got, []string{"changed/conflict", "absent/removed", "absent/none"}) {
		t.Errorf("uninstall: %v", got)
	}
	if _, err := os.Stat(filepath.Join(paths[1], "codexhost-delegation")); !os.IsNotExist(err) {
		t.Errorf("uninstall left the skill folder: %v", err)
	}
	aside, _ := filepath.Glob(filepath.Join(paths[1], ".codexhost-delegation.removed-*", "SKILL.md.removed"))
	if len(aside) != 1 {
		t.Errorf("uninstall did not move ours aside: %v", aside)
	}
	if b, _ := os.ReadFile(edited); string(b) != "my own notes\n" {
		t.Errorf("uninstall touched the user's copy: %q", b)
	}
}

// writeOurs writes an older build's copy of the skill in dir, with the manifest that marks
// it as ours.
func writeOurs(t *testing.T, dir string, text []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), text, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".codexhost-skill.json"), []byte(`{"v":1,"sha256":"`+sha256Hex(text)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A root that is a symlink, or that group or others may write, is refused before anything is
// written anywhere.
func TestSkillInstallRefusesUnsafeRoots(t *testing.T) {
	t.Parallel()
	for name, prepare := range map[string]func(t *testing.T, home string){
		"symlink root": func(t *testing.T, home string) {
			target := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, ".agents"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(home, ".agents", "skills")); err != nil {
				t.Fatal(err)
			}
		},
		"group-writable root": func(t *testing.T, home string) {
			dir := filepath.Join(home, ".claude", "skills")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o770); err != nil {
				t.Fatal(err)
			}
		},
		"world-writable home of a root": func(t *testing.T, home string) {
			if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(home, ".claude"), 0o707); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			prepare(t, home)
			var before []string
			_ = filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error { before = append(before, p); return nil })
			e := skill(t, home, filepath.Join(home, "codex-home"), "install").failure(t)
			if e.Code != "FAILED_PRECONDITION" || !strings.Contains(e.Message, "refusing skill folder") {
				t.Errorf("install: %+v", e)
			}
			var after []string
			_ = filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error { after = append(after, p); return nil })
			if !slices.Equal(before, after) {
				t.Errorf("a refused install wrote something:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// After skill install, a native Codex thread of the real App Server sees the skill, once:
// its request to the model lists codexhost-delegation a single time, although Codex reads both
// $CODEX_HOME/skills and ~/.agents/skills (installed here with the App Server's own HOME).
func TestSkillInstalledIsReadByCodexOnce(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{})
	tok := h.addClient("ci")
	skill(t, h.codexHome, h.codexHome, "install").decode(t, &skillRoots{})
	started := h.delegate(tok, "--harness", "codex", "--task", "hello skills")
	h.waitCompleted(tok, started.Thread.ID)
	var found bool
	for _, r := range h.fake.Requests() {
		if strings.Contains(r.UserText, "hello skills") && strings.Contains(string(r.Body), "skills_instructions") {
			n := strings.Count(string(r.Body), "- codexhost-delegation:")
			if n == 0 {
				n = strings.Count(string(r.Body), "codexhost-delegation/SKILL.md")
			}
			if n != 1 {
				t.Errorf("the model is offered codexhost-delegation %d times", n)
			}
			found = found || n > 0
		}
	}
	if !found {
		t.Fatalf("no request of the thread lists the codexhost-delegation skill (%d requests)", len(h.fake.Requests()))
	}
}

// The real App Server's skills/list names codexhost-delegation once after skill install, even
// where an earlier build left a full copy in $CODEX_HOME/skills: Codex reads that root and
// ~/.agents/skills both, so a copy in each would be listed (and offered to the model) twice.
func TestSkillInstalledIsListedOnceBySkillsList(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{})
	writeOurs(t, filepath.Join(h.codexHome, "skills", agentskill.Name), agentskill.Content())
	listed := func() []string {
		t.Helper()
		c, err := appserver.Start(context.Background(), appserver.Config{Bin: h.codexBin, Env: codextest.Env(h.codexHome), Dir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var out struct {
			Data []struct {
				Skills []struct{ Name, Path string } `json:"skills"`
			} `json:"data"`
		}
		if err := c.Call(context.Background(), "skills/list", map[string]any{"cwds": []string{h.work}, "forceReload": true}, &out); err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, d := range out.Data {
			for _, s := range d.Skills {
				if s.Name == agentskill.Name {
					paths = append(paths, s.Path)
				}
			}
		}
		return paths
	}
	// The earlier build's copy alone is listed: the check below sees what Codex reads.
	if got := listed(); len(got) != 1 {
		t.Fatalf("before install: skills/list names the skill at %v, want the earlier copy", got)
	}
	skill(t, h.codexHome, h.codexHome, "install").decode(t, &skillRoots{})
	got := listed()
	if want := filepath.Join(h.codexHome, ".agents", "skills", agentskill.Name, "SKILL.md"); len(got) != 1 || got[0] != want {
		t.Fatalf("after install: skills/list names the skill at %v, want once at %s", got, want)
	}
}
