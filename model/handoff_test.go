package model

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const validHandoffJSON = `{
  "version": "1",
  "title": "Add handoff demo document",
  "objective": "Create docs/HANDOFF_DEMO.md with the current execution plan.",
  "projectPath": "/absolute/approved/project",
  "constraints": ["Operate only inside the approved project root.", "Do not commit changes."],
  "allowedOperations": ["read", "write", "run_tests"],
  "testCommands": ["npm run typecheck"],
  "expectedArtifacts": ["docs/HANDOFF_DEMO.md"],
  "riskLevel": "low",
  "acceptanceCriteria": ["The file exists."],
  "skillContext": ["optional skill id or summary"],
  "skillTask": "route approved local skills",
  "maxSkillContext": 3,
  "notes": "Optional operator-visible notes."
}`

func validHandoff() map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(validHandoffJSON), &m); err != nil {
		panic(err)
	}
	return m
}

func items(n, chars int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = strings.Repeat("x", chars)
	}
	return out
}

// Scenario: S004-03
func TestDecodeHandoffValid(t *testing.T) {
	h, err := DecodeHandoff([]byte(validHandoffJSON))
	if err != nil {
		t.Fatal(err)
	}
	if h.Title != "Add handoff demo document" || h.RiskLevel != RiskLow || !h.Allows(OpRunTests) || h.SkillLimit() != 3 || !h.Writes() || !h.Goal() {
		t.Fatalf("decoded %+v", h)
	}
	// Defaults: version and maxSkillContext; notes as a list.
	m := validHandoff()
	delete(m, "version")
	delete(m, "maxSkillContext")
	m["notes"] = []any{"one", "two"}
	b, _ := json.Marshal(m)
	h, err = DecodeHandoff(b)
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != "1" || h.SkillLimit() != DefaultSkillContext || len(h.Notes.Items) != 2 {
		t.Fatalf("defaults not applied: %+v", h)
	}
	// Round trip.
	again, _ := json.Marshal(h)
	h2, err := DecodeHandoff(again)
	if err != nil || !reflect.DeepEqual(h, h2) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, h, h2)
	}
}

// Scenario: S004-03
func TestDecodeHandoffRefusals(t *testing.T) {
	cases := []struct {
		name string
		edit func(m map[string]any)
		want string // in the message
	}{
		{"unknown field", func(m map[string]any) { m["sandbox"] = "danger-full-access" }, `unknown handoff field "sandbox"`},
		{"field in other case", func(m map[string]any) { m["Title"] = "x" }, `unknown handoff field "Title"`},
		{"version", func(m map[string]any) { m["version"] = "2" }, "unsupported handoff version"},
		{"title missing", func(m map[string]any) { delete(m, "title") }, "title is empty"},
		{"title blank", func(m map[string]any) { m["title"] = "   " }, "title is empty"},
		{"title long", func(m map[string]any) { m["title"] = strings.Repeat("é", MaxTitleChars+1) }, "title has 161 characters"},
		{"title at limit", func(m map[string]any) { m["title"] = strings.Repeat("é", MaxTitleChars) }, ""},
		{"objective missing", func(m map[string]any) { delete(m, "objective") }, "objective is empty"},
		{"objective long", func(m map[string]any) { m["objective"] = strings.Repeat("x", MaxObjectiveChars+1) }, "objective has 12001 characters"},
		{"objective at limit", func(m map[string]any) { m["objective"] = strings.Repeat("x", MaxObjectiveChars) }, ""},
		{"no place", func(m map[string]any) { delete(m, "projectPath") }, "neither projectPath nor workspace"},
		{"relative path", func(m map[string]any) { m["projectPath"] = "rel/dir" }, "not an absolute path"},
		{"path long", func(m map[string]any) { m["projectPath"] = "/" + strings.Repeat("a", MaxPathChars) }, "projectPath has 4097 characters"},
		{"workspace bad", func(m map[string]any) { delete(m, "projectPath"); m["workspace"] = "../x" }, "invalid workspace name"},
		{"workspace ok", func(m map[string]any) { delete(m, "projectPath"); m["workspace"] = "docs-site" }, ""},
		{"no constraints", func(m map[string]any) { m["constraints"] = []any{} }, "constraints has 0 items"},
		{"too many constraints", func(m map[string]any) { m["constraints"] = items(MaxConstraints+1, 5) }, "constraints has 21 items"},
		{"constraint long", func(m map[string]any) { m["constraints"] = items(1, MaxConstraintChars+1) }, "constraints[0] has 1001 characters"},
		{"constraint empty", func(m map[string]any) { m["constraints"] = []any{"ok", ""} }, "constraints[1] is empty"},
		{"no operations", func(m map[string]any) { m["allowedOperations"] = []any{} }, "allowedOperations has 0 items"},
		{"too many operations", func(m map[string]any) { m["allowedOperations"] = items(MaxOperations+1, 4) }, "allowedOperations has 13 items"},
		{"shell.exec", func(m map[string]any) { m["allowedOperations"] = []any{"read", "shell.exec"} }, `allowedOperations[1] is "shell.exec", which is refused`},
		{"unknown operation", func(m map[string]any) { m["allowedOperations"] = []any{"deploy"} }, `unknown operation "deploy"`},
		{"repeated operation", func(m map[string]any) { m["allowedOperations"] = []any{"read", "read"} }, `repeats "read"`},
		{"risk missing", func(m map[string]any) { delete(m, "riskLevel") }, `riskLevel "" is not one of`},
		{"risk unknown", func(m map[string]any) { m["riskLevel"] = "extreme" }, `riskLevel "extreme"`},
		{"too many tests", func(m map[string]any) { m["testCommands"] = items(MaxTestCommands+1, 3) }, "testCommands has 11 items"},
		{"test long", func(m map[string]any) { m["testCommands"] = items(1, MaxTestCommandChars+1) }, "testCommands[0] has 1001 characters"},
		{"too many artifacts", func(m map[string]any) { m["expectedArtifacts"] = items(MaxArtifacts+1, 3) }, "expectedArtifacts has 31 items"},
		{"artifact long", func(m map[string]any) { m["expectedArtifacts"] = items(1, MaxArtifactChars+1) }, "expectedArtifacts[0] has 513 characters"},
		{"artifact absolute", func(m map[string]any) { m["expectedArtifacts"] = []any{"/etc/passwd"} }, "not a path inside the root"},
		{"artifact escapes", func(m map[string]any) { m["expectedArtifacts"] = []any{"docs/../../x"} }, "not a path inside the root"},
		{"too many criteria", func(m map[string]any) { m["acceptanceCriteria"] = items(MaxAcceptance+1, 3) }, "acceptanceCriteria has 21 items"},
		{"criterion long", func(m map[string]any) { m["acceptanceCriteria"] = items(1, MaxAcceptanceChars+1) }, "acceptanceCriteria[0] has 1001 characters"},
		{"too much skill context", func(m map[string]any) { m["skillContext"] = items(MaxSkillContextItems+1, 3) }, "skillContext has 21 items"},
		{"skill context long", func(m map[string]any) { m["skillContext"] = items(1, MaxSkillContextChars+1) }, "skillContext[0] has 1001 characters"},
		{"skill task long", func(m map[string]any) { m["skillTask"] = strings.Repeat("x", MaxSkillTaskChars+1) }, "skillTask has 4001 characters"},
		{"skill root relative", func(m map[string]any) { m["skillRoot"] = "skills" }, "skillRoot \"skills\" is not an absolute path"},
		{"max skill context high", func(m map[string]any) { m["maxSkillContext"] = 11 }, "maxSkillContext is 11"},
		{"max skill context negative", func(m map[string]any) { m["maxSkillContext"] = -1 }, "maxSkillContext is -1"},
		{"max skill context zero", func(m map[string]any) { m["maxSkillContext"] = 0 }, ""},
		{"notes long", func(m map[string]any) { m["notes"] = strings.Repeat("x", MaxNotesChars+1) }, "notes has 4001 characters"},
		{"notes too many", func(m map[string]any) { m["notes"] = items(MaxNoteItems+1, 3) }, "notes has 21 items"},
		{"note item long", func(m map[string]any) { m["notes"] = items(1, MaxNoteItemChars+1) }, "notes[0] has 1001 characters"},
		{"notes wrong type", func(m map[string]any) { m["notes"] = 5 }, "notes must be a string or a list"},
		{"title wrong type", func(m map[string]any) { m["title"] = 5 }, `field "title" must be a string`},
		{"NUL in objective", func(m map[string]any) { m["objective"] = "a\x00b" }, "objective is not valid text"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := validHandoff()
			tc.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = DecodeHandoff(b)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", tc.want)
			}
			me := AsError(err)
			if me.Code != CodeInvalidArgument || !strings.Contains(me.Message, tc.want) || me.Hint == "" {
				t.Fatalf("got %v, want INVALID_ARGUMENT containing %q with a hint", err, tc.want)
			}
		})
	}
}

func TestDecodeHandoffShellExecHint(t *testing.T) {
	m := validHandoff()
	m["allowedOperations"] = []any{"shell.exec"}
	b, _ := json.Marshal(m)
	_, err := DecodeHandoff(b)
	if err == nil || !strings.Contains(AsError(err).Hint, "testCommands") {
		t.Fatalf("want a hint naming testCommands, got %v", err)
	}
}

func TestDecodeHandoffMalformed(t *testing.T) {
	for _, in := range []string{``, `null`, `[]`, `"x"`, `{`, `{"title":"a"} {"title":"b"}`, strings.Repeat(" ", MaxHandoffBytes+1)} {
		if _, err := DecodeHandoff([]byte(in)); err == nil || AsError(err).Code != CodeInvalidArgument {
			t.Errorf("%.40q: got %v, want INVALID_ARGUMENT", in, err)
		}
	}
}

func FuzzDecodeHandoff(f *testing.F) {
	f.Add([]byte(validHandoffJSON))
	f.Add([]byte(`{"title":"t","objective":"o","workspace":"w","constraints":["c"],"allowedOperations":["read"],"riskLevel":"high","notes":["a"]}`))
	f.Add([]byte(`{"allowedOperations":["shell.exec"]}`))
	f.Add([]byte(`{"expectedArtifacts":["../x"],"maxSkillContext":99}`))
	f.Add([]byte(`{"notes":null,"title":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHandoff(b)
		if err != nil {
			if AsError(err).Code != CodeInvalidArgument {
				t.Fatalf("error with code %s: %v", AsError(err).Code, err)
			}
			return
		}
		if h.Validate() != nil {
			t.Fatal("a decoded handoff does not validate")
		}
		again, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		h2, err := DecodeHandoff(again)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", again, err)
		}
		if !reflect.DeepEqual(h, h2) {
			t.Fatalf("round trip changed the handoff:\n%+v\n%+v", h, h2)
		}
	})
}
