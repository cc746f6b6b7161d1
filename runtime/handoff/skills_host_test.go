package handoff_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// skillHost is a handoff host with one approved skill root holding a "docs-writer" skill
// whose SKILL.md references a file of its own, a missing file, a file outside its folder by
// `..` and one through a symlink; the secret each escape points at lies in the skill root.
func skillHost(t *testing.T, clients ...string) (*hosttest.Host, string) {
	t.Helper()
	skills, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(skills, "docs")
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "SKILL.md"), "---\nname: docs-writer\ndescription: Write documentation pages for handoffs\n---\n"+
		"Follow [the style guide](references/style.md) and run `scripts/check.sh`.\n"+
		"See also [missing](references/none.md), [the secret](../secret.txt) and [linked](references/link.md).\n")
	write(filepath.Join(dir, "references", "style.md"), "# Style\nShort sentences.\n")
	write(filepath.Join(dir, "scripts", "check.sh"), "#!/bin/sh\necho ok\n")
	write(filepath.Join(skills, "secret.txt"), "TOPSECRET\n")
	if err := os.Symlink(filepath.Join(skills, "secret.txt"), filepath.Join(dir, "references", "link.md")); err != nil {
		t.Fatal(err)
	}
	th, root := handoffHost(t, hosttest.Options{Clients: clients}, func(c *config.Config) { c.Handoff.SkillRoots = []string{skills} })
	return th, root
}

// Scenario: S004-08 — skill.bundle includes referenced files only with an activation id of
// that skill; references that leave the skill folder are refused, never read.
func TestS004_08_SkillBundleIsActivationGated(t *testing.T) {
	th, _ := skillHost(t)
	c := th.Client("bot")

	routed := hosttest.Call[api.SkillRouteResult](t, c, api.MethodSkillRoute, api.SkillRouteParams{Task: "write the handoff documentation"})
	if len(routed.Recommendations) != 1 || routed.Recommendations[0].Name != "docs-writer" || routed.Recommendations[0].Score == 0 || routed.Recommendations[0].Reason == "" {
		t.Fatalf("route %+v", routed)
	}

	before := hosttest.Call[api.SkillBundleResult](t, c, api.MethodSkillBundle, api.SkillBundleParams{Skill: "docs-writer"})
	if before.Activated || len(before.Files) != 1 || before.Files[0].Path != "SKILL.md" || len(before.Notes) == 0 {
		t.Fatalf("bundle without activation: %+v", before)
	}
	if !slices.Equal(before.References, []string{"references/style.md", "scripts/check.sh", "references/none.md", "../secret.txt", "references/link.md"}) {
		t.Fatalf("references %v", before.References)
	}

	read := hosttest.Call[api.SkillReadResult](t, c, api.MethodSkillRead, api.SkillReadParams{Skill: "docs-writer", MaxBytes: 1000})
	if !strings.HasPrefix(read.ActivationID, "act_") || !strings.Contains(read.Content, "style guide") || read.Truncated || len(read.SHA256) != 64 {
		t.Fatalf("read %+v", read)
	}
	after := hosttest.Call[api.SkillBundleResult](t, c, api.MethodSkillBundle, api.SkillBundleParams{Skill: "docs", ActivationID: read.ActivationID})
	var paths []string
	for _, f := range after.Files {
		paths = append(paths, f.Path)
		if strings.Contains(f.Content, "TOPSECRET") {
			t.Fatalf("escaped content bundled: %+v", f)
		}
		if len(f.SHA256) != 64 || f.Size == 0 {
			t.Fatalf("file %+v", f)
		}
	}
	if !after.Activated || !slices.Equal(paths, []string{"SKILL.md", "references/style.md", "scripts/check.sh"}) {
		t.Fatalf("activated bundle %v: %+v", paths, after)
	}
	refused := map[string]string{}
	for _, r := range after.Refused {
		refused[r.Reference] = r.Reason
	}
	if !strings.Contains(refused["../secret.txt"], "escapes") || !strings.Contains(refused["references/link.md"], "outside the skill folder") || refused["references/none.md"] == "" {
		t.Fatalf("refused %+v", after.Refused)
	}

	// An id of a read must belong to the skill bundled, and be one the runtime issued.
	forged := hosttest.Call[api.SkillBundleResult](t, c, api.MethodSkillBundle, api.SkillBundleParams{Skill: "docs-writer", ActivationID: "act_019a0000-0000-7000-8000-000000000000"})
	if forged.Activated || len(forged.Files) != 1 {
		t.Fatalf("forged activation: %+v", forged)
	}
	none := 0
	capped := hosttest.Call[api.SkillBundleResult](t, c, api.MethodSkillBundle, api.SkillBundleParams{Skill: "docs-writer", ActivationID: read.ActivationID, MaxReferenceFiles: &none})
	if len(capped.Files) != 1 || len(capped.Omitted) != 2 {
		t.Fatalf("maxReferenceFiles 0: %+v", capped)
	}
	hosttest.CallErr(t, c, api.MethodSkillRead, api.SkillReadParams{Skill: "docs-writer", MaxBytes: 999}, model.CodeInvalidArgument)
	hosttest.CallErr(t, c, api.MethodSkillRead, api.SkillReadParams{Skill: "nope"}, model.CodeInvalidArgument)
	hosttest.CallErr(t, c, api.MethodSkillRoute, api.SkillRouteParams{Task: "x", SkillRoot: t.TempDir()}, model.CodeFailedPrecondition)
}

// Scenario: S004-08 — handoff.create records whether each recommended skill was read, and a
// later read shows on the handoff.
func TestS004_08_HandoffRecordsSkillActivations(t *testing.T) {
	th, root := skillHost(t)
	c := th.Client("bot")
	h := demoHandoff(projectDir(t, root, "p"))
	h["skillTask"] = "write documentation"
	created := createHandoff(t, c, h)
	acts := created.Handoff.SkillActivations
	if len(acts) != 1 || acts[0].Skill != "docs-writer" || acts[0].Activated {
		t.Fatalf("activations at create %+v", acts)
	}
	read := hosttest.Call[api.SkillReadResult](t, c, api.MethodSkillRead, api.SkillReadParams{Skill: "docs-writer"})
	shown := hosttest.Call[api.HandoffShowResult](t, c, api.MethodHandoffShow, api.HandoffShowParams{HandoffID: created.HandoffID})
	if a := shown.Summary.SkillActivations; len(a) != 1 || !a[0].Activated || a[0].ActivationID != read.ActivationID {
		t.Fatalf("activations after the read %+v", a)
	}
	again := createHandoff(t, c, h)
	if a := again.Handoff.SkillActivations; len(a) != 1 || !a[0].Activated {
		t.Fatalf("activations of a handoff created after the read %+v", a)
	}
	st, err := os.Stat(filepath.Join(th.Home, "skills", "activations.jsonl"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("activations file %v %v", st, err)
	}
}

// Scenario: S004-08 — an activation id is bound to the client that read the skill: another
// client presenting it is refused, and gets no referenced file.
func TestS004_08_ActivationIDIsBoundToItsClient(t *testing.T) {
	th, _ := skillHost(t, "other")
	bot, other := th.Client("bot"), th.Client("other")
	read := hosttest.Call[api.SkillReadResult](t, bot, api.MethodSkillRead, api.SkillReadParams{Skill: "docs-writer"})
	err := hosttest.CallErr(t, other, api.MethodSkillBundle, api.SkillBundleParams{Skill: "docs-writer", ActivationID: read.ActivationID}, model.CodePermissionDenied)
	if !strings.Contains(err.Hint, "skill.read") {
		t.Fatalf("refusal %+v", err)
	}
	own := hosttest.Call[api.SkillBundleResult](t, bot, api.MethodSkillBundle, api.SkillBundleParams{Skill: "docs-writer", ActivationID: read.ActivationID})
	if !own.Activated || len(own.Files) < 2 {
		t.Fatalf("the maker's own bundle %+v", own)
	}
}

// Scenario: S004-08 — two skills with the same front-matter name: reading that name is
// refused with the folders to choose from (not one of them picked silently), and a handoff
// routed to both shows as read only the one that was read.
func TestS004_08_DuplicateSkillNames(t *testing.T) {
	skills, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"dup-a", "dup-b"} {
		if err := os.MkdirAll(filepath.Join(skills, dir), 0o700); err != nil {
			t.Fatal(err)
		}
		body := "---\nname: reviewer\ndescription: review golang code (" + dir + ")\n---\n"
		if err := os.WriteFile(filepath.Join(skills, dir, "SKILL.md"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	th, root := handoffHost(t, hosttest.Options{}, func(c *config.Config) { c.Handoff.SkillRoots = []string{skills} })
	c := th.Client("bot")

	e := hosttest.CallErr(t, c, api.MethodSkillRead, api.SkillReadParams{Skill: "reviewer"}, model.CodeInvalidArgument)
	if !strings.Contains(e.Hint, "dup-a") || !strings.Contains(e.Hint, "dup-b") {
		t.Fatalf("an ambiguous name must name the folders to choose from: %+v", e)
	}
	h := demoHandoff(projectDir(t, root, "p"))
	h["skillTask"] = "review golang code"
	created := createHandoff(t, c, h)
	if a := created.Handoff.SkillActivations; len(a) != 2 || a[0].Activated || a[1].Activated {
		t.Fatalf("activations at create %+v", a)
	}
	read := hosttest.Call[api.SkillReadResult](t, c, api.MethodSkillRead, api.SkillReadParams{Skill: "dup-b"})
	if !strings.HasSuffix(read.File, filepath.Join("dup-b", "SKILL.md")) {
		t.Fatalf("read by folder %+v", read)
	}
	shown := hosttest.Call[api.HandoffShowResult](t, c, api.MethodHandoffShow, api.HandoffShowParams{HandoffID: created.HandoffID})
	a := shown.Summary.SkillActivations
	if len(a) != 2 || a[0].Activated || !a[1].Activated || a[1].ActivationID != read.ActivationID {
		t.Fatalf("only dup-b (routed second) was read: %+v", a)
	}
}

// Scenario: S004-08 — a folder of the skill root that is not a skill is named with the
// reason and the fix when asked for: too big, no front matter, or a SKILL.md linking out of
// the root (which is never read).
func TestS004_08_SkillReadSaysWhyAFolderIsNoSkill(t *testing.T) {
	skills, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	secret := filepath.Join(outside, "SKILL.md")
	files := map[string]string{
		filepath.Join(skills, "big", "SKILL.md"):  "---\nname: big\n---\n" + strings.Repeat("x", 70<<10),
		filepath.Join(skills, "bare", "SKILL.md"): "just notes\n",
		secret: "---\nname: outlink\ndescription: TOPSECRET\n---\nTOPSECRET\n",
	}
	for path, body := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(skills, "outlink"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(skills, "outlink", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	th, _ := handoffHost(t, hosttest.Options{}, func(c *config.Config) { c.Handoff.SkillRoots = []string{skills} })
	c := th.Client("bot")
	for folder, want := range map[string]string{"big": "more than the 65536", "bare": "front matter", "outlink": "links out of the approved skill root"} {
		e := hosttest.CallErr(t, c, api.MethodSkillRead, api.SkillReadParams{Skill: folder}, model.CodeInvalidArgument)
		if !strings.Contains(e.Hint, want) || strings.Contains(e.Hint+e.Message, "TOPSECRET") {
			t.Errorf("skill.read %s: %+v; want a hint with %q", folder, e, want)
		}
	}
	e := hosttest.CallErr(t, c, api.MethodSkillBundle, api.SkillBundleParams{Skill: "outlink"}, model.CodeInvalidArgument)
	if strings.Contains(e.Hint+e.Message, "TOPSECRET") {
		t.Fatalf("bundle read out of the root: %+v", e)
	}
}
