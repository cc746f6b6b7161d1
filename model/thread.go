package model

import (
	"encoding/json"
	"time"
)

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
	ID     string    `json:"id,omitempty" doc:"stable message id"`
	Role   string    `json:"role" doc:"user or agent"`
	Text   string    `json:"text" doc:"the message text"`
	TurnID string    `json:"turnId,omitempty" doc:"the turn it belongs to"`
	Phase  string    `json:"phase,omitempty" doc:"an agent message's phase (commentary, final_answer), when Codex gives one"` // an agent message's phase, when Codex gives one
	At     time.Time `json:"at,omitzero" doc:"when it was written"`
}

// TurnSummary describes a turn without its content.
type TurnSummary struct {
	ID          string     `json:"id" doc:"the turn's id"`
	Status      string     `json:"status" doc:"running, completed, failed or interrupted"`
	Error       string     `json:"error,omitempty" doc:"why it failed"`
	StartedAt   *time.Time `json:"startedAt,omitempty" doc:"when it started"`
	CompletedAt *time.Time `json:"completedAt,omitempty" doc:"when it ended"`
	// Progress counts what the running turn did so far, where the harness reports it (the
	// App Server's items of a native turn); absent for an ended turn and external ones.
	Progress *TurnProgress `json:"progress,omitempty" doc:"what the running turn did so far, when its harness reports it"`
}

// TurnProgress is what a running turn did so far: counts only, never content.
type TurnProgress struct {
	Items    int `json:"items" doc:"items of its work so far (agent messages, reasoning, commands, file changes, tool calls)"`
	Commands int `json:"commands" doc:"commands it ran or runs"`
	Messages int `json:"messages" doc:"agent messages it wrote"`
}

// ThreadInfo is the metadata part of every thread view.
//
// ThreadID, HarnessID, DeepLink and RunStatus are the public CodexHost names (SetPublic):
// in JSON "status" is the public status, and Status, the load state, is "loadState".
type ThreadInfo struct {
	ID        string `json:"id" doc:"the thread's id (a UUID)"`
	ThreadID  string `json:"threadId" doc:"the same id, public name"`
	Link      string `json:"link" doc:"codex://threads/<id>"`
	DeepLink  string `json:"deepLink" doc:"the same link, public name"`
	Harness   string `json:"harness" doc:"the harness it runs on"`
	HarnessID string `json:"harnessId" doc:"the same, public name"`
	// Status is the thread's load state (Thread*: idle, active, notLoaded, systemError).
	Status string `json:"loadState" doc:"App Server load state: idle, active, notLoaded (loaded by no one here) or systemError"`
	// RunStatus is the public status of the thread's work (Status* of public.go).
	RunStatus         string        `json:"status" doc:"creating, running, completed, failed or interrupted"`
	WaitingOnApproval bool          `json:"waitingOnApproval,omitempty" doc:"true while a native turn waits for an approval"`
	Title             string        `json:"title,omitempty" doc:"its title, when it has one"`
	Cwd               string        `json:"cwd,omitempty" doc:"its working directory"`
	Model             string        `json:"model,omitempty" doc:"its model"`
	Configuration     Configuration `json:"configuration" doc:"the model and thinking the thread actually runs with"`
	CreatedAt         time.Time     `json:"createdAt" doc:"when it was created"`
	UpdatedAt         time.Time     `json:"updatedAt" doc:"when it last changed"`
	LastTurn          *TurnSummary  `json:"lastTurn,omitempty" doc:"its latest turn"`
	Origin            *OriginView   `json:"origin,omitempty" doc:"who made it (absent for a thread not made by codexhost)"`
	Refs              []string      `json:"refs" doc:"absolute URIs of related material, inherited ones first"`
	BranchOf          *BranchSource `json:"branchOf,omitempty" doc:"the session a continued thread branches from (absent for others)"`
	// Usage is null while the thread has reported no token usage (an external harness that
	// prints no usage line): unknown, not zero.
	Usage *Usage `json:"usage" doc:"token usage of its turns (input, cachedInput, output, reasoning, total, turns, context fill, estimatedCost); null when none was reported"`
}

// Configuration is what a thread actually runs with, as its harness reports it: for a native
// thread the App Server's own model and reasoning effort of the thread, for an external one
// what codexhost gives its command. Null is not known (the harness's default applies).
type Configuration struct {
	Model    *string `json:"model" doc:"the model, null when the harness chooses"`
	Thinking *string `json:"thinking" doc:"the thinking option (reasoning effort), null for the model's default"`
}

// NewConfiguration is a Configuration of a model and a thinking option, "" being unknown.
func NewConfiguration(model, thinking string) Configuration {
	var c Configuration
	if model != "" {
		c.Model = &model
	}
	if thinking != "" {
		c.Thinking = &thinking
	}
	return c
}

// OriginView says who made the thread: a parent thread (delegation) or a client.
type OriginView struct {
	Kind         string `json:"kind" doc:"thread (delegated by a parent thread) or client (started by a client)"`
	ParentThread string `json:"parentThread,omitempty" doc:"the delegating thread"`
	Client       string `json:"client,omitempty" doc:"the client that started it"`
	DelegationID string `json:"delegationId,omitempty" doc:"the delegation record's id"`
}

// Result is the outcome of the thread's latest finished turn: its status and final assistant
// text. Empty while the first turn still runs.
type Result struct {
	TurnID string `json:"turnId,omitempty" doc:"the finished turn"`
	Status string `json:"status,omitempty" doc:"completed, failed or interrupted"`
	Text   string `json:"text,omitempty" doc:"its final agent message"`
	Error  string `json:"error,omitempty" doc:"why it failed"`
	// Availability and Message are the public view (SetAvailability): whether the outcome
	// of the current work can be read, and why not when it cannot.
	Availability string `json:"availability,omitempty" doc:"pending (a turn still runs, or none finished), available (text is the outcome) or unavailable (message says why)"`
	Message      string `json:"message,omitempty" doc:"why the result is unavailable"`
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

// turnSummaryJSON has TurnSummary's fields without its methods.
type turnSummaryJSON TurnSummary

// MarshalJSON writes the turn's status in the public vocabulary: a turn in flight is
// "running" in every output, as thread read's status and turn.status say.
func (t TurnSummary) MarshalJSON() ([]byte, error) {
	if t.Status == TurnInProgress {
		t.Status = StatusRunning
	}
	return json.Marshal(turnSummaryJSON(t))
}

// UnmarshalJSON reads what MarshalJSON writes back into the runtime's own word, so that code
// on either side of the wire compares with TurnInProgress.
func (t *TurnSummary) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*turnSummaryJSON)(t)); err != nil {
		return err
	}
	if t.Status == StatusRunning {
		t.Status = TurnInProgress
	}
	return nil
}
