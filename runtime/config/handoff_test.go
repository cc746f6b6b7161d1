package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

func loadTOML(t *testing.T, body string) (*Config, error) {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return Load(home)
}

func TestHandoffConfigValid(t *testing.T) {
	cfg, err := loadTOML(t, `
[handoff]
allowed_project_roots = ["/srv/projects"]
skill_roots = ["/srv/skills"]
deny_globs = ["**/.env", "**/*.pem", "**/.ssh/**"]
auto_start_max_risk = "medium"
max_approval = "untrusted"
[handoff.workspaces]
docs = "/srv/projects/docs"
[handoff.providers.local]
kind = "openai-compatible"
base_url = "http://127.0.0.1:8080/v1"
env_key = "LOCAL_API_KEY"
model = "qwen"
[handoff.providers.plain]
`)
	if err != nil {
		t.Fatal(err)
	}
	h := cfg.Handoff
	if len(h.AllowedProjectRoots) != 1 || h.Workspaces["docs"] != "/srv/projects/docs" || len(h.DenyGlobs) != 3 ||
		h.Providers["local"].EnvKey != "LOCAL_API_KEY" || h.Providers["plain"].EffectiveKind() != ProviderCodex || h.AutoStartMax() != model.RiskMedium ||
		h.MaxApprovalOrNever() != model.ApprovalUntrusted {
		t.Fatalf("decoded %+v", h)
	}
	if (Handoff{}).AutoStartMax() != model.RiskLow {
		t.Fatal("auto_start_max_risk does not default to low")
	}
	if (Handoff{}).MaxApprovalOrNever() != model.ApprovalNever {
		t.Fatal("max_approval does not default to never")
	}
}

func TestHandoffConfigRefusals(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"relative root", "[handoff]\nallowed_project_roots = [\"rel\"]", "handoff.allowed_project_roots[0] is not an absolute path"},
		{"relative skill root", "[handoff]\nskill_roots = [\"/ok\", \"rel\"]", "handoff.skill_roots[1] is not an absolute path"},
		{"workspace name", "[handoff.workspaces]\n\"../x\" = \"/a\"", "invalid workspace name"},
		{"workspace path", "[handoff.workspaces]\ndocs = \"docs\"", "handoff.workspaces.docs is not an absolute path"},
		{"empty glob", "[handoff]\ndeny_globs = [\" \"]", "handoff.deny_globs[0]"},
		{"provider kind", "[handoff.providers.x]\nkind = \"azure\"", `handoff.providers.x.kind "azure" is unknown`},
		{"provider url", "[handoff.providers.x]\nkind = \"sub2api\"", "handoff.providers.x.base_url is not a usable URL"},
		{"provider url credentials", "[handoff.providers.x]\nkind = \"sub2api\"\nbase_url = \"https://u:secret@h/v1\"", "base_url is not a usable URL"},
		{"provider env key value", "[handoff.providers.x]\nenv_key = \"sk-live-123\"", "env_key is not a variable name"},
		{"provider name", "[handoff.providers.X]\n", "invalid provider name"},
		{"auto start risk", "[handoff]\nauto_start_max_risk = \"none\"", `handoff.auto_start_max_risk "none" is not a risk level`},
		{"max approval", "[handoff]\nmax_approval = \"always\"", `handoff.max_approval "always" is not an approval policy`},
		{"unknown key", "[handoff]\nallowed_roots = [\"/a\"]", "unknown keys"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadTOML(t, tc.body)
			if err == nil {
				t.Fatalf("accepted, want %q", tc.want)
			}
			me := model.AsError(err)
			if me.Code != model.CodeInvalidArgument || !strings.Contains(me.Message, tc.want) || me.Hint == "" {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(me.Message, "secret") || strings.Contains(me.Message, "sk-live") {
				t.Fatalf("the message echoes a credential: %v", err)
			}
		})
	}
}
