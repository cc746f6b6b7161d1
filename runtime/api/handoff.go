package api

import (
	"encoding/json"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Methods of handoffs and their tasks (runtime/handoff).
const (
	MethodHandoffCreate = "handoff.create"
	MethodHandoffList   = "handoff.list"
	MethodHandoffShow   = "handoff.show"
	MethodTaskStart     = "task.start"
	MethodTaskStatus    = "task.status"
	MethodTaskResult    = "task.result"
	MethodTaskCancel    = "task.cancel"
	MethodTaskConfirm   = "task.confirm"
)

// HandoffCreateParams carries the handoff object as given (decoded strictly by the runtime).
type HandoffCreateParams struct {
	Handoff json.RawMessage `json:"handoff"`
}

// SkillRecommendation is a skill routed to a handoff, with its deterministic score and why.
type SkillRecommendation struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	File        string `json:"file"`
	Score       int    `json:"score"`
	Reason      string `json:"reason"`
}

// SkillActivation says whether a recommended skill has been read (activated) yet.
type SkillActivation struct {
	Skill        string `json:"skill"`
	Activated    bool   `json:"activated"`
	ActivationID string `json:"activationId,omitempty"`
}

// HandoffSummary is a handoff's metadata, linked from its tasks.
type HandoffSummary struct {
	HandoffID        string            `json:"handoffId"`
	Title            string            `json:"title"`
	RiskLevel        string            `json:"riskLevel"`
	RiskFloor        string            `json:"riskFloor,omitempty"` // the least risk of what it asks
	Operations       []string          `json:"allowedOperations"`
	Root             string            `json:"root"`
	Dir              string            `json:"dir"`
	Goal             bool              `json:"goal,omitempty"`
	HandoffFile      string            `json:"handoffFile"`
	SkillActivations []SkillActivation `json:"skillActivations,omitempty"`
	CreatedBy        string            `json:"createdBy,omitempty"` // runtime, or client:NAME
	CreatedAt        time.Time         `json:"createdAt"`
}

// HandoffCreateResult names the persisted handoff. Nothing runs.
type HandoffCreateResult struct {
	HandoffID            string                `json:"handoffId"`
	HandoffFile          string                `json:"handoffFile"`
	Handoff              HandoffSummary        `json:"handoff"`
	SkillRecommendations []SkillRecommendation `json:"skillRecommendations,omitempty"`
	LatencyMs            float64               `json:"latencyMs"`
}

// HandoffListParams pages nothing yet: the newest handoffs first, up to Limit (1–100, 20).
type HandoffListParams struct {
	Limit int `json:"limit,omitempty"`
}

// HandoffListResult lists handoffs, newest first.
type HandoffListResult struct {
	Handoffs []HandoffSummary `json:"handoffs"`
}

// HandoffShowParams names a handoff.
type HandoffShowParams struct {
	HandoffID string `json:"handoffId"`
}

// HandoffShowResult is a handoff in full, with its skill routing.
type HandoffShowResult struct {
	Summary              HandoffSummary        `json:"summary"`
	Handoff              model.Handoff         `json:"handoff"`
	SkillRecommendations []SkillRecommendation `json:"skillRecommendations,omitempty"`
}

// TaskStartParams starts a task from a handoff, or from the legacy direct fields (Task with
// ProjectPath or Workspace, which get read and write at medium risk).
type TaskStartParams struct {
	HandoffID   string `json:"handoffId,omitempty"`
	Task        string `json:"task,omitempty"`
	ProjectPath string `json:"projectPath,omitempty"`
	Workspace   string `json:"workspace,omitempty"`
	// ConfirmHighRisk is the operator's confirmation of a high-risk handoff; only the home's
	// operator client may give it.
	ConfirmHighRisk bool   `json:"confirmHighRisk,omitempty"`
	TimeoutMs       int64  `json:"timeoutMs,omitempty"`
	Provider        string `json:"provider,omitempty"` // a [handoff.providers.NAME] profile
	// Approval is the task thread's approval policy (model.ApprovalPolicies; "" is never),
	// at most [handoff] max_approval.
	Approval string `json:"approval,omitempty"`
}

// TaskInfo is a task's state with its linked handoff.
type TaskInfo struct {
	TaskID      string          `json:"taskId"`
	Link        string          `json:"link"`
	Status      string          `json:"status"`
	HandoffID   string          `json:"handoffId"`
	Handoff     *HandoffSummary `json:"linkedHandoff,omitempty"`
	RiskLevel   string          `json:"riskLevel"`
	RiskFloor   string          `json:"riskFloor,omitempty"`   // the least risk of what the handoff asks
	HeldBecause string          `json:"heldBecause,omitempty"` // why the start waited for the operator
	Operations  []string        `json:"allowedOperations"`
	Root        string          `json:"root"`
	Sandbox     string          `json:"sandbox"`
	Network     bool            `json:"network"`
	Goal        bool            `json:"goal,omitempty"`
	Provider    string          `json:"provider,omitempty"`
	Approval    string          `json:"approval,omitempty"` // the thread's approval policy; absent is never
	TimeoutMs   int64           `json:"timeoutMs"`
	Reason      string          `json:"reason,omitempty"`
	StartedBy   string          `json:"startedBy,omitempty"`
	ConfirmedBy string          `json:"confirmedBy,omitempty"`
	CancelledBy string          `json:"cancelledBy,omitempty"`
	// Replaces / ReplacedBy: the awaiting task a restart cut off, and the task its
	// confirmation ran instead (a thread without a turn does not outlive its App Server).
	Replaces   string    `json:"replaces,omitempty"`
	ReplacedBy string    `json:"replacedBy,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	Deadline   time.Time `json:"deadline,omitzero"`
	EndedAt    time.Time `json:"endedAt,omitzero"`
	// Evidence counts, once the turn ended.
	ChangedFiles int   `json:"changedFileCount"`
	TestsPassed  *bool `json:"testsPassed,omitempty"`
	Violations   int   `json:"violationCount"`
}

// TaskStartResult is the started (or awaiting) task.
type TaskStartResult struct {
	Task TaskInfo `json:"task"`
}

// TaskStatusParams reads one task, or lists running and recent ones (Limit 1–100, default 20).
type TaskStatusParams struct {
	TaskID string `json:"taskId,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// TaskStatusResult lists tasks, running first, then newest first.
type TaskStatusResult struct {
	Tasks []TaskInfo `json:"tasks"`
}

// TaskResultParams asks for a task's result; log, diff and handoff only when asked, each text
// capped to MaxTextBytes (200–20,000, default 1,800).
type TaskResultParams struct {
	TaskID         string `json:"taskId"`
	IncludeLog     bool   `json:"includeLog,omitempty"`
	IncludeDiff    bool   `json:"includeDiff,omitempty"`
	IncludeHandoff bool   `json:"includeHandoff,omitempty"`
	MaxTextBytes   int    `json:"maxTextBytes,omitempty"`
}

// TaskChangedFile is a file the task added, modified or deleted.
type TaskChangedFile struct {
	Path    string `json:"path"`
	Change  string `json:"change"`
	Added   *int   `json:"linesAdded,omitempty"`
	Deleted *int   `json:"linesDeleted,omitempty"`
	// DeniedBy names the deny glob the path matches: a policy violation.
	DeniedBy string `json:"deniedBy,omitempty"`
	// ByTests says a test command codexhost ran changed it last (the turn did not).
	ByTests bool `json:"byTests,omitempty"`
}

// TaskTest is one test command codexhost ran after the turn.
type TaskTest struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exitCode"`
	TimedOut   bool   `json:"timedOut,omitempty"`
	DurationMs int64  `json:"durationMs"`
	OutputTail string `json:"outputTail,omitempty"`
	Error      string `json:"error,omitempty"`
}

// TaskArtifact says whether an expected artifact exists in the project directory.
type TaskArtifact struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	Reason string `json:"reason,omitempty"`
}

// TaskResult is a task's outcome: compact unless log, diff or handoff were asked for.
type TaskResult struct {
	Task          TaskInfo          `json:"task"`
	ChangedFiles  []TaskChangedFile `json:"changedFiles"`
	Tests         []TaskTest        `json:"tests,omitempty"`
	Artifacts     []TaskArtifact    `json:"artifacts,omitempty"`
	Violations    []string          `json:"violations,omitempty"`
	Notes         []string          `json:"notes,omitempty"`
	Log           string            `json:"log,omitempty"`
	LogTruncated  bool              `json:"logTruncated,omitempty"`
	Diff          string            `json:"diff,omitempty"`
	DiffTruncated bool              `json:"diffTruncated,omitempty"`
	Handoff       *model.Handoff    `json:"handoff,omitempty"`
}

// TaskCancelParams cancels a task; Confirm must be true.
type TaskCancelParams struct {
	TaskID  string `json:"taskId"`
	Confirm bool   `json:"confirm"`
}

// TaskConfirmParams is the operator's confirmation of an awaiting high-risk task.
type TaskConfirmParams struct {
	TaskID string `json:"taskId"`
}
