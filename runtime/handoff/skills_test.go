package handoff

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeSkill(t *testing.T, root, dir, body string) {
	t.Helper()
	mkdirs(t, filepath.Join(root, dir))
	if err := os.WriteFile(filepath.Join(root, dir, "SKILL.md"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Scenario: S004-08
func TestRouteSkillsDeterministic(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	writeSkill(t, root, "docs", "---\nname: docs-writer\ndescription: \"Write documentation pages and handoff notes\"\n---\nbody")
	writeSkill(t, root, "tests", "---\nname: test-runner\ndescription: Run the test suite\n---\n")
	writeSkill(t, root, "broken", "no front matter")
	writeSkill(t, root, "handoff", "---\nname: handoff\ndescription: documentation of handoffs\n---\n")
	skills := LoadSkills(root)
	if len(skills) != 3 {
		t.Fatalf("skills %+v", skills)
	}
	recs := Route(skills, "Write the handoff documentation", 2)
	if len(recs) != 2 || recs[0].Skill.Name != "handoff" || recs[0].Score != 4 || recs[1].Skill.Name != "docs-writer" || recs[1].Score != 3 {
		t.Fatalf("ranking %+v", recs)
	}
	if !strings.Contains(recs[0].Reason, "name matches handoff") || !strings.Contains(recs[0].Reason, "description matches documentation") {
		t.Fatalf("reason %q", recs[0].Reason)
	}
	if again := Route(skills, "Write the handoff documentation", 2); !reflect.DeepEqual(recs, again) {
		t.Fatal("routing is not deterministic")
	}
	if Route(skills, "unrelated", 3) != nil {
		t.Fatal("a task matching nothing gets no skill")
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	f.Add([]byte("---\nname: a\ndescription: 'b'\n---\n"))
	f.Add([]byte("---\nname:\n---"))
	f.Add([]byte("name: a\n"))
	f.Add([]byte("---\nname: \"x\ndescription: y: z\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		name, _, ok := ParseFrontMatter(b)
		if ok && name == "" {
			t.Fatal("ok without a name")
		}
	})
}

func FuzzGlobMatch(f *testing.F) {
	f.Add("**/.env", "a/b/.env")
	f.Add("**/.ssh/**", ".ssh/x")
	f.Add("[", "x")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if got := (Globs{pattern}).Match(path); got != "" && got != pattern {
			t.Fatalf("Match returned %q, not the pattern", got)
		}
	})
}
