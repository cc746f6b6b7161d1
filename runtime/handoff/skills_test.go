package handoff

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexhost/codexhost/model"
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

// A SKILL.md saved with a byte-order mark (as some Windows editors do) is still a skill.
func TestParseFrontMatterBOM(t *testing.T) {
	t.Parallel()
	name, desc, ok := ParseFrontMatter([]byte("\ufeff---\r\nname: bom\r\ndescription: saved with a BOM\r\n---\r\n"))
	if !ok || name != "bom" || desc != "saved with a BOM" {
		t.Fatalf("got %q %q %v", name, desc, ok)
	}
}

// A routed skill's context line must pass the handoff's own skillContext checks, whatever
// the skill's front matter or path holds: otherwise handoff.create fails on a field the
// caller never wrote.
func TestContextLineFitsSkillContext(t *testing.T) {
	t.Parallel()
	longPath := "/" + strings.Repeat("d", 300) + "/huge/SKILL.md"
	for _, sk := range []Skill{
		{Name: "huge", Description: strings.Repeat("a", 30000), File: longPath},
		{Name: "caf\xe9", Description: "latin-1 \xff and a NUL \x00", File: "/skills/l\xe9/SKILL.md"},
		{Name: strings.Repeat("n", 5000), File: "/" + strings.Repeat("p", 2000) + "/SKILL.md"},
	} {
		line := Recommendation{Skill: sk}.ContextLine()
		if !utf8.ValidString(line) || strings.ContainsRune(line, 0) || utf8.RuneCountInString(line) > model.MaxSkillContextChars {
			t.Fatalf("context line of %q is not valid skillContext: %d characters, %q", clip(sk.Name, 20), utf8.RuneCountInString(line), clip(line, 80))
		}
		if len(sk.File) < 1000 && !strings.HasSuffix(line, "("+strings.ToValidUTF8(sk.File, "\uFFFD")+")") {
			t.Fatalf("the line lost the skill's file: %q", clip(line, 80))
		}
	}
}

// Scenario: S004-08 — a root of more skills than are read says how many folders were left
// unread, instead of routing as if they were not there.
func TestSkillsPastTheCapAreCounted(t *testing.T) {
	t.Parallel()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for i := range maxSkillsRead + 3 {
		writeSkill(t, root, fmt.Sprintf("s%04d", i), fmt.Sprintf("---\nname: skill-%d\ndescription: d\n---\n", i))
	}
	skills, unread := loadSkills(root)
	if len(skills) != maxSkillsRead || unread != 3 {
		t.Fatalf("%d skills read, %d unread; want %d and 3", len(skills), unread, maxSkillsRead)
	}
}
