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
type Message struct {
	Role   string    `json:"role"`
	Text   string    `json:"text"`
	TurnID string    `json:"turnId,omitempty"`
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
type ThreadInfo struct {
	ID                string       `json:"id"`
	Link              string       `json:"link"`
	Harness           string       `json:"harness"`
	Status            string       `json:"status"`
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
