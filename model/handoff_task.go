package model

import "time"

// Task states.
const (
	TaskAwaitingConfirmation = "awaitingConfirmation" // held for the operator (high risk, or above auto_start_max_risk)
	TaskRunning              = "running"
	TaskCompleted            = "completed"
	TaskFailed               = "failed"
	TaskInterrupted          = "interrupted" // the turn ended without a cancel (or the runtime restarted)
	TaskTimedOut             = "timedOut"
	TaskCancelled            = "cancelled"
)

// TaskTerminal reports whether a task in state s will never run again.
func TaskTerminal(s string) bool {
	switch s {
	case TaskCompleted, TaskFailed, TaskInterrupted, TaskTimedOut, TaskCancelled:
		return true
	}
	return false
}

// Task timeouts.
const (
	MinTaskTimeout     = time.Second
	MaxTaskTimeout     = 10 * time.Minute
	DefaultTaskTimeout = 5 * time.Minute
)

// HandoffRecord is the store record of a persisted handoff: ids, risk, operations, root and
// times only. The handoff's text is in its 0600 file.
type HandoffRecord struct {
	V          int       `json:"v"`
	ID         string    `json:"id"`
	Risk       string    `json:"risk"`
	Operations []string  `json:"operations"`
	Root       string    `json:"root"`
	CreatedBy  string    `json:"createdBy,omitempty"` // runtime, or client:NAME
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// TaskRecord is the store record of a task: a native thread run from a handoff. It holds ids,
// decisions and times; never the prompt, output or provider secrets.
type TaskRecord struct {
	V         int      `json:"v"`
	ID        ThreadID `json:"id"` // the thread id
	HandoffID string   `json:"handoffId"`
	Status    string   `json:"status"`
	Risk      string   `json:"risk"` // as declared
	// RiskFloor is the least risk of what the handoff asks; Held says why the start waited
	// for the operator ("" when it started at once).
	RiskFloor  string   `json:"riskFloor,omitempty"`
	Held       string   `json:"held,omitempty"`
	Operations []string `json:"operations"`
	Root       string   `json:"root"`
	Sandbox    string   `json:"sandbox"`
	Network    bool     `json:"network,omitempty"`
	Goal       bool     `json:"goal,omitempty"`
	Provider   string   `json:"provider,omitempty"` // the profile's name
	// Approval is the thread's approval policy ("" is never).
	Approval  string `json:"approval,omitempty"`
	TurnID    string `json:"turnId,omitempty"`
	TimeoutMs int64  `json:"timeoutMs"`
	StartedBy string `json:"startedBy,omitempty"`
	// ConfirmedBy is who confirmed a high-risk task; CancelledBy who cancelled it.
	ConfirmedBy string `json:"confirmedBy,omitempty"`
	CancelledBy string `json:"cancelledBy,omitempty"`
	Reason      string `json:"reason,omitempty"` // why it ended that way, in codexhost's words
	// Replaces and ReplacedBy link an awaiting task whose thread a restart lost to the task
	// its confirmation ran in a new thread.
	Replaces   ThreadID  `json:"replaces,omitempty"`
	ReplacedBy ThreadID  `json:"replacedBy,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	Deadline   time.Time `json:"deadline,omitzero"`
	EndedAt    time.Time `json:"endedAt,omitzero"`
	UpdatedAt  time.Time `json:"updatedAt"`
}
