package handoff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
)

// A nonexistent allowed root is ignored, and named as such for `codexhost doctor`.
func TestRootWarningsNameMissingRoots(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	pol := config.Handoff{AllowedProjectRoots: []string{filepath.Join(base, "gone"), base}}
	w := RootWarnings(pol)
	if len(w) != 1 || !strings.Contains(w[0], "allowed_project_roots[0]") || !strings.Contains(w[0], "gone") || !strings.Contains(w[0], "ignored") {
		t.Fatalf("warnings %q", w)
	}
	if w := RootWarnings(config.Handoff{AllowedProjectRoots: []string{base}}); len(w) != 0 {
		t.Fatalf("warnings of an existing root %q", w)
	}
}

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func handoffAt(p string) model.Handoff {
	return model.Handoff{Version: "1", Title: "t", Objective: "o", ProjectPath: p, Constraints: []string{"c"}, AllowedOperations: []string{"read"}, RiskLevel: "low"}
}

// Scenario: S004-02
func TestResolvePolicy(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	mkdirs(t, filepath.Join(root, "proj"), outside)
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(base, "rootlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pol := config.Handoff{AllowedProjectRoots: []string{root}, Workspaces: map[string]string{"docs": filepath.Join(root, "proj"), "out": outside}}
	linkPol := config.Handoff{AllowedProjectRoots: []string{filepath.Join(base, "rootlink")}}
	cases := []struct {
		name string
		pol  config.Handoff
		h    model.Handoff
		code model.Code
		want string
	}{
		{"inside", pol, handoffAt(filepath.Join(root, "proj")), "", ""},
		{"the root itself", pol, handoffAt(root), "", ""},
		{"dot dot", pol, handoffAt(filepath.Join(root, "proj") + "/../../outside"), model.CodeFailedPrecondition, "outside every allowed project root"},
		{"symlink out", pol, handoffAt(filepath.Join(root, "escape")), model.CodeFailedPrecondition, "outside every allowed project root"},
		{"root is a symlink", linkPol, handoffAt(filepath.Join(root, "proj")), "", ""},
		{"via the symlinked root", linkPol, handoffAt(filepath.Join(base, "rootlink", "proj")), "", ""},
		{"symlinked root, escape", linkPol, handoffAt(filepath.Join(base, "rootlink", "escape")), model.CodeFailedPrecondition, "outside every allowed project root"},
		{"empty roots", config.Handoff{}, handoffAt(root), model.CodeFailedPrecondition, "handoff.allowed_project_roots is empty"},
		{"only a missing root", config.Handoff{AllowedProjectRoots: []string{filepath.Join(base, "nope")}}, handoffAt(root), model.CodeFailedPrecondition, "no entry of handoff.allowed_project_roots is an existing directory"},
		{"a missing root beside one that exists", config.Handoff{AllowedProjectRoots: []string{filepath.Join(base, "nope"), root}}, handoffAt(filepath.Join(root, "proj")), "", ""},
		{"project is a file", pol, handoffAt(filepath.Join(root, "file.txt")), model.CodeInvalidArgument, "is a file, not a directory"},
		{"project missing", pol, handoffAt(filepath.Join(root, "gone")), model.CodeInvalidArgument, "does not exist"},
		{"workspace", pol, model.Handoff{Workspace: "docs"}, "", ""},
		{"workspace outside", pol, model.Handoff{Workspace: "out"}, model.CodeFailedPrecondition, "outside every allowed project root"},
		{"workspace unknown", pol, model.Handoff{Workspace: "web"}, model.CodeInvalidArgument, `workspace "web" is not configured`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			place, err := Resolve(tc.pol, tc.h)
			if tc.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !Inside(place.Root, place.Dir) || place.Root != root {
					t.Fatalf("place %+v", place)
				}
				return
			}
			me := model.AsError(err)
			if err == nil || me.Code != tc.code || !strings.Contains(me.Message, tc.want) || me.Hint == "" {
				t.Fatalf("got %v, want %s %q", err, tc.code, tc.want)
			}
		})
	}
}

func TestResolveSkillRoot(t *testing.T) {
	t.Parallel()
	base, _ := filepath.EvalSymlinks(t.TempDir())
	approved, other := filepath.Join(base, "skills"), filepath.Join(base, "other")
	mkdirs(t, filepath.Join(approved, "team"), other)
	pol := config.Handoff{SkillRoots: []string{approved}}
	if r, err := ResolveSkillRoot(pol, ""); err != nil || r != approved {
		t.Fatalf("default: %q %v", r, err)
	}
	if r, err := ResolveSkillRoot(pol, filepath.Join(approved, "team")); err != nil || r != filepath.Join(approved, "team") {
		t.Fatalf("inside: %q %v", r, err)
	}
	if _, err := ResolveSkillRoot(pol, other); !model.IsCode(err, model.CodeFailedPrecondition) {
		t.Fatalf("outside: %v", err)
	}
}

func TestDenyGlobs(t *testing.T) {
	t.Parallel()
	g := Globs{"**/.env", "**/*.pem", "**/.ssh/**", "secrets/*.txt", "id_rsa"}
	for path, want := range map[string]string{
		".env": "**/.env", "a/b/.env": "**/.env", "k.pem": "**/*.pem", "x/y/k.pem": "**/*.pem",
		".ssh/id": "**/.ssh/**", "home/.ssh/a/b": "**/.ssh/**", "secrets/a.txt": "secrets/*.txt", "deep/id_rsa": "id_rsa",
		"env": "", "a/.env.example": "", "secrets/x/a.txt": "", "docs/HANDOFF_DEMO.md": "", "pem": "",
		// Case never hides a match: .ENV is .env on a case-insensitive filesystem.
		".ENV": "**/.env", "a/.Env": "**/.env", "K.PEM": "**/*.pem", ".SSH/id": "**/.ssh/**", "Secrets/A.TXT": "secrets/*.txt", "deep/ID_RSA": "id_rsa",
	} {
		if got := g.Match(path); got != want {
			t.Errorf("Match(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestSandboxDerivation(t *testing.T) {
	t.Parallel()
	ro := DeriveSandbox(handoffAt("/p"), "/p", true)
	if ro.Mode != SandboxReadOnly || ro.Network || ro.TurnPolicy()["type"] != "readOnly" {
		t.Fatalf("read-only: %+v", ro)
	}
	// The thread's permission profile hides every secret directory that exists and does not
	// hold the project.
	home := t.TempDir()
	prof := ro.threadConfig([]string{home, "/nonexistent/codex-home", "/"})["permissions"].(map[string]any)[profileName].(map[string]any)
	if fs := prof["filesystem"].(map[string]any); prof["extends"] != ":read-only" || len(fs) != 1 || fs[home] != "none" {
		t.Fatalf("read-only profile %v", prof)
	}
	h := handoffAt("/p")
	h.AllowedOperations = []string{"read", "create_artifact"}
	ww := DeriveSandbox(h, "/p", true)
	if ww.Mode != SandboxWorkspaceWrite || ww.Network {
		t.Fatalf("low risk never gets the network: %+v", ww)
	}
	prof = ww.threadConfig(nil)["permissions"].(map[string]any)[profileName].(map[string]any)
	if fs := prof["filesystem"].(map[string]any); prof["extends"] != ":workspace" || fs[":slash_tmp"] != "read" || fs[":tmpdir"] != "read" {
		t.Fatalf("workspace profile %v", prof)
	}
	pol := ww.TurnPolicy()
	if pol["type"] != "workspaceWrite" || pol["excludeSlashTmp"] != true || pol["networkAccess"] != false || pol["writableRoots"].([]string)[0] != "/p" {
		t.Fatalf("policy %v", pol)
	}
	h.RiskLevel = model.RiskHigh
	if !DeriveSandbox(h, "/p", true).Network || DeriveSandbox(h, "/p", false).Network {
		t.Fatal("only a confirmed high-risk task gets the network")
	}
}

func TestPromptFromHandoff(t *testing.T) {
	t.Parallel()
	h := handoffAt("/p")
	h.Objective = "Create docs/HANDOFF_DEMO.md"
	h.AcceptanceCriteria = []string{"The file exists."}
	h.ExpectedArtifacts = []string{"docs/HANDOFF_DEMO.md"}
	h.TestCommands = []string{"make test"}
	h.SkillContext = []string{"skill docs: writes docs"}
	p := Prompt(h, Place{Dir: "/p", Root: "/"}, DeriveSandbox(h, "/p", false))
	for _, want := range []string{"Create docs/HANDOFF_DEMO.md", "- c", "- read", "Risk level: low", "The file exists.", "docs/HANDOFF_DEMO.md", "make test", "codexhost runs them itself", "skill docs", "read-only"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}

func TestProviderTraceRedacted(t *testing.T) {
	t.Parallel()
	p := Provider{Name: "local", Profile: config.HandoffProvider{Kind: "sub2api", BaseURL: "https://api.example.com:8443/v1?x=1", EnvKey: "LOCAL_KEY", Model: "m1"}}
	tr := p.Trace()
	if tr["baseUrlHost"] != "api.example.com" || tr["envKey"] != "LOCAL_KEY" || tr["kind"] != "sub2api" || tr["model"] != "m1" || len(tr) != 5 {
		t.Fatalf("trace %v", tr)
	}
	var spec ThreadSpec
	p.apply(&spec)
	if spec.ModelProvider != "codexhost_local" || spec.Model != "m1" {
		t.Fatalf("spec %+v", spec)
	}
}

// An unknown workspace names the configured ones; with none configured the hint says so
// instead of listing an empty "()".
func TestUnknownWorkspaceHint(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for _, tc := range []struct {
		pol  config.Handoff
		want string
	}{
		{config.Handoff{AllowedProjectRoots: []string{root}, Workspaces: map[string]string{"docs": root, "api": root}}, "(api, docs)"},
		{config.Handoff{AllowedProjectRoots: []string{root}}, "none is configured"},
	} {
		_, err := Resolve(tc.pol, model.Handoff{Workspace: "web"})
		me := model.AsError(err)
		if err == nil || me.Code != model.CodeInvalidArgument || !strings.Contains(me.Hint, tc.want) || strings.Contains(me.Hint, "()") {
			t.Fatalf("workspaces %v: %v (hint %q)", tc.pol.Workspaces, err, me.Hint)
		}
	}
}
