package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// HandoffVersion is the only handoff format version.
const HandoffVersion = "1"

// The operations a handoff may allow. The set is closed: anything else is refused.
const (
	OpRead            = "read"
	OpWrite           = "write"
	OpRunTests        = "run_tests"
	OpInspectGit      = "inspect_git"
	OpCreateArtifact  = "create_artifact"
	OpUseSkillContext = "use_skill_context"
)

// HandoffOperations is the operations vocabulary, in its documented order.
var HandoffOperations = []string{OpRead, OpWrite, OpRunTests, OpInspectGit, OpCreateArtifact, OpUseSkillContext}

// Risk levels of a handoff.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// HandoffRisks are the risk levels, least first.
var HandoffRisks = []string{RiskLow, RiskMedium, RiskHigh}

// Limits of a handoff. Lengths count characters (runes); every list item has its own bound.
const (
	MaxHandoffBytes       = 256 << 10
	MaxTitleChars         = 160
	MaxObjectiveChars     = 12000
	MaxConstraints        = 20
	MaxConstraintChars    = 1000
	MaxOperations         = 12
	MaxTestCommands       = 10
	MaxTestCommandChars   = 1000
	MaxArtifacts          = 30
	MaxArtifactChars      = 512
	MaxAcceptance         = 20
	MaxAcceptanceChars    = 1000
	MaxSkillContextItems  = 20
	MaxSkillContextChars  = 1000
	MaxSkillTaskChars     = 4000
	MaxPathChars          = 4096
	MaxWorkspaceNameChars = 64
	MaxSkillContextLimit  = 10
	DefaultSkillContext   = 3
	MaxNotesChars         = 4000
	MaxNoteItems          = 20
	MaxNoteItemChars      = 1000
)

// Handoff is a task package: a goal, its limits and where it runs. Its text is content: it is
// kept in a 0600 file under the home, never in a store record.
type Handoff struct {
	Version            string   `json:"version"`
	Title              string   `json:"title"`
	Objective          string   `json:"objective"`
	ProjectPath        string   `json:"projectPath,omitempty"`
	Workspace          string   `json:"workspace,omitempty"`
	Constraints        []string `json:"constraints"`
	AllowedOperations  []string `json:"allowedOperations"`
	RiskLevel          string   `json:"riskLevel"`
	TestCommands       []string `json:"testCommands,omitempty"`
	ExpectedArtifacts  []string `json:"expectedArtifacts,omitempty"`
	AcceptanceCriteria []string `json:"acceptanceCriteria,omitempty"`
	SkillContext       []string `json:"skillContext,omitempty"`
	SkillTask          string   `json:"skillTask,omitempty"`
	SkillRoot          string   `json:"skillRoot,omitempty"`
	// MaxSkillContext is nil when not given; Normalize sets the default.
	MaxSkillContext *int  `json:"maxSkillContext,omitempty"`
	Notes           Notes `json:"notes,omitzero"`
}

// Notes are operator-visible notes: one text or a list of items.
type Notes struct {
	Text  string
	Items []string
}

// IsZero reports whether there are no notes.
func (n Notes) IsZero() bool { return n.Text == "" && n.Items == nil }

// MarshalJSON writes a string or a list, as given.
func (n Notes) MarshalJSON() ([]byte, error) {
	if n.Items != nil {
		return json.Marshal(n.Items)
	}
	return json.Marshal(n.Text)
}

// UnmarshalJSON reads a string or a list of strings.
func (n *Notes) UnmarshalJSON(b []byte) error {
	*n = Notes{}
	if err := json.Unmarshal(b, &n.Text); err == nil {
		return nil
	}
	var items []string
	if err := json.Unmarshal(b, &items); err != nil {
		return errors.New("notes must be a string or a list of strings")
	}
	if items == nil {
		items = []string{}
	}
	n.Items = items
	return nil
}

// handoffFields are the JSON names a handoff may carry, matched exactly (encoding/json alone
// would also accept other letter cases).
var handoffFields = []string{"version", "title", "objective", "projectPath", "workspace", "constraints",
	"allowedOperations", "riskLevel", "testCommands", "expectedArtifacts", "acceptanceCriteria",
	"skillContext", "skillTask", "skillRoot", "maxSkillContext", "notes"}

const handoffFormatHint = "see `codexhost handoff create --help` for the handoff fields and their limits"

// DecodeHandoff reads one handoff JSON object strictly: unknown fields are refused by name,
// and nothing may follow the object. It validates and normalizes the result.
func DecodeHandoff(b []byte) (Handoff, error) {
	if len(b) > MaxHandoffBytes {
		return Handoff{}, Errorf(CodeInvalidArgument, fmt.Sprintf("keep the handoff under %d bytes", MaxHandoffBytes), "the handoff is %d bytes", len(b))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil || fields == nil {
		return Handoff{}, Errorf(CodeInvalidArgument, "give one JSON object; "+handoffFormatHint, "the handoff is not a JSON object: %v", jsonReason(err))
	}
	var unknown []string
	for k := range fields {
		if !slices.Contains(handoffFields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Handoff{}, Errorf(CodeInvalidArgument, "remove it; the known fields are "+strings.Join(handoffFields, ", "),
			"unknown handoff field %q", unknown[0]).WithDetail("unknownFields", unknown)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var h Handoff
	if err := dec.Decode(&h); err != nil {
		return Handoff{}, Errorf(CodeInvalidArgument, handoffFormatHint, "malformed handoff: %v", jsonReason(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Handoff{}, Errorf(CodeInvalidArgument, "give exactly one JSON object", "malformed handoff: data after the object")
	}
	h.Normalize()
	if err := h.Validate(); err != nil {
		return Handoff{}, err
	}
	return h, nil
}

func jsonReason(err error) string {
	if err == nil {
		return "null"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q must be a %s", te.Field, te.Type)
	}
	return err.Error()
}

// Normalize fills the defaults (version "1", maxSkillContext 3) and drops empty optional lists.
func (h *Handoff) Normalize() {
	if h.Version == "" {
		h.Version = HandoffVersion
	}
	if h.MaxSkillContext == nil {
		n := DefaultSkillContext
		h.MaxSkillContext = &n
	}
	// An optional list given empty is one not given: its JSON leaves both out, so the handoff
	// read back from its file is the one that was written.
	for _, l := range []*[]string{&h.TestCommands, &h.ExpectedArtifacts, &h.AcceptanceCriteria, &h.SkillContext} {
		if len(*l) == 0 {
			*l = nil
		}
	}
}

// SkillLimit is maxSkillContext with its default.
func (h Handoff) SkillLimit() int {
	if h.MaxSkillContext == nil {
		return DefaultSkillContext
	}
	return *h.MaxSkillContext
}

// Allows reports whether op is among the allowed operations.
func (h Handoff) Allows(op string) bool { return slices.Contains(h.AllowedOperations, op) }

// Writes reports whether the task may change files in its root.
func (h Handoff) Writes() bool { return h.Allows(OpWrite) || h.Allows(OpCreateArtifact) }

// Goal reports whether the task is a goal thread: it has acceptance criteria or test commands.
func (h Handoff) Goal() bool { return len(h.AcceptanceCriteria) > 0 || len(h.TestCommands) > 0 }

// Built on first use: a package-level map or regexp is built by every process at start.
var workspaceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })

// Validate checks every field against its limit. The first problem is returned, naming the field.
func (h Handoff) Validate() error {
	if h.Version != HandoffVersion {
		return Errorf(CodeInvalidArgument, `set "version": "1" or leave it out`, "unsupported handoff version %q", h.Version)
	}
	checks := []error{
		handoffText("title", h.Title, 1, MaxTitleChars),
		handoffText("objective", h.Objective, 1, MaxObjectiveChars),
		h.validateWhere(),
		handoffList("constraints", h.Constraints, 1, MaxConstraints, MaxConstraintChars),
		h.validateOperations(),
		validateRisk(h.RiskLevel),
		handoffList("testCommands", h.TestCommands, 0, MaxTestCommands, MaxTestCommandChars),
		validateArtifacts(h.ExpectedArtifacts),
		handoffList("acceptanceCriteria", h.AcceptanceCriteria, 0, MaxAcceptance, MaxAcceptanceChars),
		handoffList("skillContext", h.SkillContext, 0, MaxSkillContextItems, MaxSkillContextChars),
		handoffText("skillTask", h.SkillTask, 0, MaxSkillTaskChars),
		optionalPath("skillRoot", h.SkillRoot),
		validateSkillLimit(h.MaxSkillContext),
		validateNotes(h.Notes),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

func (h Handoff) validateWhere() error {
	if h.ProjectPath == "" && h.Workspace == "" {
		return Errorf(CodeInvalidArgument, "give projectPath (an absolute path inside an allowed project root) or workspace (a name from [handoff.workspaces])", "the handoff names neither projectPath nor workspace")
	}
	if h.ProjectPath != "" {
		if err := optionalPath("projectPath", h.ProjectPath); err != nil {
			return err
		}
	}
	if h.Workspace != "" {
		if utf8.RuneCountInString(h.Workspace) > MaxWorkspaceNameChars || !workspaceName().MatchString(h.Workspace) {
			return Errorf(CodeInvalidArgument, "give the name of a workspace configured in [handoff.workspaces] (letters, digits, . _ -)", "invalid workspace name %q", clipText(h.Workspace, 80))
		}
	}
	return nil
}

func (h Handoff) validateOperations() error {
	ops := h.AllowedOperations
	if len(ops) < 1 || len(ops) > MaxOperations {
		return Errorf(CodeInvalidArgument, "allow 1 to 12 operations from: "+strings.Join(HandoffOperations, ", "), "allowedOperations has %d items", len(ops))
	}
	for i, op := range ops {
		switch {
		case op == "shell.exec" || op == "shell_exec" || op == "exec":
			return Errorf(CodeInvalidArgument, "shell.exec is not an operation: list the commands to run in testCommands (with run_tests allowed) or describe them in the objective",
				"allowedOperations[%d] is %q, which is refused", i, op)
		case !slices.Contains(HandoffOperations, op):
			return Errorf(CodeInvalidArgument, "use operations from: "+strings.Join(HandoffOperations, ", "), "allowedOperations[%d] is the unknown operation %q", i, clipText(op, 80)).WithDetail("operations", HandoffOperations)
		case slices.Index(ops, op) != i:
			return Errorf(CodeInvalidArgument, "list each operation once", "allowedOperations[%d] repeats %q", i, op)
		}
	}
	return nil
}

func validateRisk(r string) error {
	if !slices.Contains(HandoffRisks, r) {
		return Errorf(CodeInvalidArgument, "set riskLevel to low, medium or high", "riskLevel %q is not one of low, medium, high", clipText(r, 40))
	}
	return nil
}

func validateArtifacts(paths []string) error {
	if err := handoffList("expectedArtifacts", paths, 0, MaxArtifacts, MaxArtifactChars); err != nil {
		return err
	}
	for i, p := range paths {
		clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
		if strings.HasPrefix(p, "/") || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
			return Errorf(CodeInvalidArgument, "give artifact paths relative to the project root, without ..", "expectedArtifacts[%d] %q is not a path inside the root", i, clipText(p, 80))
		}
	}
	return nil
}

func validateSkillLimit(n *int) error {
	if n != nil && (*n < 0 || *n > MaxSkillContextLimit) {
		return Errorf(CodeInvalidArgument, "give maxSkillContext from 0 to 10 (default 3)", "maxSkillContext is %d", *n)
	}
	return nil
}

func validateNotes(n Notes) error {
	if n.Items != nil {
		return handoffList("notes", n.Items, 0, MaxNoteItems, MaxNoteItemChars)
	}
	return handoffText("notes", n.Text, 0, MaxNotesChars)
}

func optionalPath(field, p string) error {
	if p == "" {
		return nil
	}
	if err := handoffText(field, p, 1, MaxPathChars); err != nil {
		return err
	}
	if !strings.HasPrefix(p, "/") {
		return Errorf(CodeInvalidArgument, "give an absolute path", "%s %q is not an absolute path", field, clipText(p, 80))
	}
	return nil
}

// text checks a string's length in characters and refuses invalid UTF-8 and NUL.
func handoffText(field, s string, minChars, maxChars int) error {
	if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
		return Errorf(CodeInvalidArgument, "use valid UTF-8 text without NUL characters", "%s is not valid text", field)
	}
	n := utf8.RuneCountInString(s)
	if minChars > 0 && strings.TrimSpace(s) == "" {
		return Errorf(CodeInvalidArgument, fmt.Sprintf("give %s (1 to %d characters)", field, maxChars), "%s is empty", field)
	}
	if n > maxChars {
		return Errorf(CodeInvalidArgument, fmt.Sprintf("shorten %s to at most %d characters", field, maxChars), "%s has %d characters", field, n).WithDetail("limit", maxChars)
	}
	return nil
}

func handoffList(field string, items []string, minItems, maxItems, maxChars int) error {
	if len(items) < minItems || len(items) > maxItems {
		return Errorf(CodeInvalidArgument, fmt.Sprintf("give %s %d to %d items", field, minItems, maxItems), "%s has %d items", field, len(items)).WithDetail("limit", maxItems)
	}
	for i, it := range items {
		if err := handoffText(fmt.Sprintf("%s[%d]", field, i), it, 1, maxChars); err != nil {
			return err
		}
	}
	return nil
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
