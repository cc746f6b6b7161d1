package api

// Methods of the approved local skills (runtime/handoff): routing a task over them, reading
// (activating) one, and bundling the files its SKILL.md references. Referenced files come
// only with the activation id of a read of that skill, so a parallel read and bundle cannot
// skip the read.
const (
	MethodSkillRoute  = "skill.route"
	MethodSkillRead   = "skill.read"
	MethodSkillBundle = "skill.bundle"
)

// Limits of the skill methods.
const (
	DefaultSkillResults    = 5
	MaxSkillResults        = 10
	MinSkillReadBytes      = 1000
	MaxSkillReadBytes      = 512 << 10
	DefaultSkillReadBytes  = 120000
	MaxSkillReferenceFiles = 40
	DefaultSkillReferences = 12
	MaxSkillBundleBytes    = 2 << 20
	DefaultSkillBundle     = 250000
)

// SkillRouteParams ranks the skills of an approved skill root (default: the first) for a task.
type SkillRouteParams struct {
	Task       string `json:"task"`
	SkillRoot  string `json:"skillRoot,omitempty"`
	MaxResults int    `json:"maxResults,omitempty"` // 1–10, default 5
}

// SkillRouteResult lists the recommendations, best first.
type SkillRouteResult struct {
	SkillRoot       string                `json:"skillRoot"`
	Recommendations []SkillRecommendation `json:"recommendations"`
	// UnreadFolders counts the root's folders past the first 500 skills (in folder-name
	// order): they were not read, so none of them can be recommended.
	UnreadFolders int `json:"unreadFolders,omitempty"`
}

// SkillReadParams reads a skill's SKILL.md (by its front-matter name or its folder name) and
// activates it.
type SkillReadParams struct {
	Skill     string `json:"skill"`
	SkillRoot string `json:"skillRoot,omitempty"`
	MaxBytes  int    `json:"maxBytes,omitempty"` // 1,000–524,288, default 120,000
}

// SkillReadResult is the SKILL.md text, cut at MaxBytes on a character boundary, and the
// activation id that skill.bundle asks for.
type SkillReadResult struct {
	Skill        string `json:"skill"`
	Description  string `json:"description,omitempty"`
	File         string `json:"file"`
	Size         int64  `json:"size"`
	SHA256       string `json:"sha256"`
	Content      string `json:"content"`
	Truncated    bool   `json:"truncated"`
	ActivationID string `json:"activationId"`
}

// SkillBundleParams bundles a skill: SKILL.md and, with the activation id of a read of that
// skill and IncludeReferences (default true), the files it references inside its own folder.
type SkillBundleParams struct {
	Skill             string `json:"skill"`
	SkillRoot         string `json:"skillRoot,omitempty"`
	ActivationID      string `json:"activationId,omitempty"`
	IncludeReferences *bool  `json:"includeReferences,omitempty"`
	MaxReferenceFiles *int   `json:"maxReferenceFiles,omitempty"` // 0–40, default 12
	MaxBytes          int    `json:"maxBytes,omitempty"`          // content bytes in all, ≤ 2 MiB, default 250,000
}

// SkillFile is one file of a bundle: its path relative to the skill folder, size and digest,
// and its content as far as the byte budget reaches.
type SkillFile struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`
	SHA256    string `json:"sha256"`
	Content   string `json:"content,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

// SkillRefusal is a reference that was not bundled, and why.
type SkillRefusal struct {
	Reference string `json:"reference"`
	Reason    string `json:"reason"`
}

// SkillBundleResult is the bundle. Activated says whether the activation id was valid for
// this skill; without it Files holds SKILL.md alone and Notes say how to get the rest.
type SkillBundleResult struct {
	Skill      string         `json:"skill"`
	Folder     string         `json:"folder"`
	Activated  bool           `json:"activated"`
	Files      []SkillFile    `json:"files"`
	References []string       `json:"references"`
	Refused    []SkillRefusal `json:"refused,omitempty"`
	Omitted    []string       `json:"omitted,omitempty"` // references past maxReferenceFiles
	Notes      []string       `json:"notes,omitempty"`
}
