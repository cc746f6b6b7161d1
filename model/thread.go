package model

import "time"

// Thread status as codexhost reports it, the same for native and external threads.
const (
	ThreadIdle        = "idle"
	ThreadActive      = "active"
	ThreadSystemError = "systemError"
	ThreadNotLoaded   = "notLoaded"
)

// Turn statuses.
const (
	TurnInProgress  = "inProgress"
	TurnCompleted   = "completed"
	TurnFailed      = "failed"
	TurnInterrupted = "interrupted"
)

// Harness kinds.
const (
	HarnessNative   = "native"
	HarnessExternal = "external"
)

// NativeHarness is the name of the always-registered Codex harness.
const NativeHarness = "codex"

// Message roles in a thread view.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one user or assistant message of a thread, oldest first in a page.
// In JSON the assistant role is the public "agent" (public.go).
type Message struct {
	// ID is stable across reads: the App Server's item id, or turn/position of an external turn.
	ID     string    `json:"id,omitempty"`
	Role   string    `json:"role"`
	Text   string    `json:"text"`
	TurnID string    `json:"turnId,omitempty"`
	Phase  string    `json:"phase,omitempty"` // an agent message's phase, when Codex gives one
	At     time.Time `json:"at,omitzero"`
}

// TurnSummary describes a turn without its content.
type TurnSummary struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	Error       string     `json:"error,omitempty"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
}

// ThreadInfo is the metadata part of every thread view.
//
// ThreadID, HarnessID, DeepLink and RunStatus are the public CodexHost names (SetPublic):
// in JSON "status" is the public status, and Status, the load state, is "loadState".
type ThreadInfo struct {
	ID        string `json:"id"`
	ThreadID  string `json:"threadId"`
	Link      string `json:"link"`
	DeepLink  string `json:"deepLink"`
	Harness   string `json:"harness"`
	HarnessID string `json:"harnessId"`
	// Status is the thread's load state (Thread*: idle, active, notLoaded, systemError).
	Status string `json:"loadState"`
	// RunStatus is the public status of the thread's work (Status* of public.go).
	RunStatus         string       `json:"status"`
	WaitingOnApproval bool         `json:"waitingOnApproval,omitempty"`
	Title             string       `json:"title,omitempty"`
	Cwd               string       `json:"cwd,omitempty"`
	Model             string       `json:"model,omitempty"`
	CreatedAt         time.Time    `json:"createdAt"`
	UpdatedAt         time.Time    `json:"updatedAt"`
	LastTurn          *TurnSummary `json:"lastTurn,omitempty"`
	Origin            *OriginView  `json:"origin,omitempty"`
	Refs              []string     `json:"refs"`
}

// OriginView says who made the thread: a parent thread (delegation) or a client.
type OriginView struct {
	Kind         string `json:"kind"`
	ParentThread string `json:"parentThread,omitempty"`
	Client       string `json:"client,omitempty"`
	DelegationID string `json:"delegationId,omitempty"`
}

// Result is the outcome of the thread's latest finished turn: its status and final assistant
// text. Empty while the first turn still runs.
type Result struct {
	TurnID string `json:"turnId,omitempty"`
	Status string `json:"status,omitempty"`
	Text   string `json:"text,omitempty"`
	Error  string `json:"error,omitempty"`
	// Availability and Message are the public view (SetAvailability): whether the outcome
	// of the current work can be read, and why not when it cannot.
	Availability string `json:"availability,omitempty"`
	Message      string `json:"message,omitempty"`
}

// Read views.
const (
	ViewResult   = "result"
	ViewMessages = "messages"
)

// Paging limits shared by read and list.
const (
	DefaultPageLimit = 25
	MaxPageLimit     = 100
)
