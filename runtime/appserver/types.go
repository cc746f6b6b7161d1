package appserver

import (
	"encoding/json"
	"time"

	"github.com/codexhost/codexhost/model"
)

// The types below follow the protocol's JSON Schema (`codex app-server generate-json-schema
// --experimental`, codex 0.169.0), keeping only the fields codexhost uses. Objects that the
// App Server may extend keep their raw JSON in Raw, so nothing it sent is lost to a reader
// that needs a field not modelled here.

// InitializeResult is the initialize response.
type InitializeResult struct {
	UserAgent      string `json:"userAgent"`
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOs     string `json:"platformOs"`
}

// Thread status types reported by the App Server.
const (
	StatusNotLoaded   = "notLoaded"
	StatusIdle        = "idle"
	StatusActive      = "active"
	StatusSystemError = "systemError"
)

// ThreadStatus is {"type": …, "activeFlags": […]}.
type ThreadStatus struct {
	Type        string   `json:"type"`
	ActiveFlags []string `json:"activeFlags,omitempty"`
}

// WaitingOnApproval reports the active flag set while an approval request is open.
func (s ThreadStatus) WaitingOnApproval() bool {
	for _, f := range s.ActiveFlags {
		if f == "waitingOnApproval" {
			return true
		}
	}
	return false
}

// GitInfo is the repository state captured for a thread.
type GitInfo struct {
	Branch    *string `json:"branch,omitempty"`
	OriginURL *string `json:"originUrl,omitempty"`
	Sha       *string `json:"sha,omitempty"`
}

// Thread is a Codex thread. Source is a string or an object in the schema, so it stays raw.
type Thread struct {
	ID            string  `json:"id"`
	SessionID     string  `json:"sessionId"`
	ForkedFromID  *string `json:"forkedFromId"`
	ParentID      *string `json:"parentThreadId"`
	Preview       string  `json:"preview"`
	Name          *string `json:"name"`
	Ephemeral     bool    `json:"ephemeral"`
	Model         *string `json:"model"`
	ModelProvider string  `json:"modelProvider"`
	// ReasoningEffort is the thread's effort; null runs the model's default.
	ReasoningEffort *string         `json:"reasoningEffort"`
	CreatedAt       int64           `json:"createdAt"`
	UpdatedAt       int64           `json:"updatedAt"`
	RecencyAt       *int64          `json:"recencyAt"`
	Status          ThreadStatus    `json:"status"`
	Path            *string         `json:"path"`
	Cwd             string          `json:"cwd"`
	CliVersion      string          `json:"cliVersion"`
	Originator      *string         `json:"originator"`
	Source          json.RawMessage `json:"source"`
	ThreadSource    *string         `json:"threadSource"`
	GitInfo         *GitInfo        `json:"gitInfo"`
	Turns           []Turn          `json:"turns"`
	Raw             json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw object beside the decoded fields.
func (t *Thread) UnmarshalJSON(b []byte) error {
	type plain Thread
	if err := json.Unmarshal(b, (*plain)(t)); err != nil {
		return err
	}
	t.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// SourceKind is the session source as a plain string ("cli", "vscode", …), or "custom" /
// "subAgent" for the object forms.
func (t Thread) SourceKind() string {
	var s string
	if json.Unmarshal(t.Source, &s) == nil {
		return s
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(t.Source, &obj) == nil {
		for k := range obj {
			return k
		}
	}
	return ""
}

// Turn status values.
const (
	TurnInProgress  = "inProgress"
	TurnCompleted   = "completed"
	TurnInterrupted = "interrupted"
	TurnFailed      = "failed"
)

// TurnError explains a failed or interrupted turn.
type TurnError struct {
	Message        string          `json:"message"`
	CodexErrorInfo json.RawMessage `json:"codexErrorInfo,omitempty"`
}

// Turn is one user request and the work done for it.
type Turn struct {
	ID          string     `json:"id"`
	RootTurnID  *string    `json:"rootTurnId"`
	Items       []Item     `json:"items"`
	ItemsView   string     `json:"itemsView"`
	Status      string     `json:"status"`
	Error       *TurnError `json:"error"`
	StartedAt   *int64     `json:"startedAt"`
	CompletedAt *int64     `json:"completedAt"`
	DurationMs  *int64     `json:"durationMs"`
}

// Item is a thread item. Only message items are decoded; every item keeps its raw JSON.
type Item struct {
	Type    string          `json:"type"`
	ID      string          `json:"id"`
	Text    string          `json:"text,omitempty"`    // agentMessage
	Phase   string          `json:"phase,omitempty"`   // agentMessage: commentary or final_answer, when given
	Content []UserInput     `json:"content,omitempty"` // userMessage
	Raw     json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw item; content of unmodelled item types may have other shapes.
func (it *Item) UnmarshalJSON(b []byte) error {
	var head struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*it = Item{Type: head.Type, ID: head.ID, Raw: append(json.RawMessage(nil), b...)}
	switch head.Type {
	case "agentMessage":
		var m struct {
			Text  string          `json:"text"`
			Phase json.RawMessage `json:"phase"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		// Only a plain string phase is reported; another shape is left out, not an error.
		_ = json.Unmarshal(m.Phase, &it.Phase)
		it.Text = m.Text
	case "userMessage":
		var m struct {
			Content []UserInput `json:"content"`
		}
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		it.Content = m.Content
	}
	return nil
}

// Time is when the item happened: its completion, else its start, else its turn's start.
func (it Item) Time(t Turn) time.Time {
	var ts struct {
		StartedAtMs   *int64 `json:"startedAtMs"`
		CompletedAtMs *int64 `json:"completedAtMs"`
	}
	_ = json.Unmarshal(it.Raw, &ts)
	switch {
	case ts.CompletedAtMs != nil:
		return time.UnixMilli(*ts.CompletedAtMs).UTC()
	case ts.StartedAtMs != nil:
		return time.UnixMilli(*ts.StartedAtMs).UTC()
	case t.StartedAt != nil:
		return time.Unix(*t.StartedAt, 0).UTC()
	}
	return time.Time{}
}

// MarshalJSON writes the item as received.
func (it Item) MarshalJSON() ([]byte, error) {
	if len(it.Raw) > 0 {
		return it.Raw, nil
	}
	type plain Item
	return json.Marshal(plain(it))
}

// UserInput is one part of a user message: text, image, localImage, …
type UserInput struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
	URL  string `json:"url,omitempty"`
	Path string `json:"path,omitempty"`
}

// TextInput is the usual single text input of a turn.
func TextInput(text string) []UserInput { return []UserInput{{Type: "text", Text: text}} }

// ThreadStartParams for thread/start.
type ThreadStartParams struct {
	Cwd            string `json:"cwd,omitempty"`
	Model          string `json:"model,omitempty"`
	ModelProvider  string `json:"modelProvider,omitempty"`
	ApprovalPolicy string `json:"approvalPolicy,omitempty"`
	Sandbox        string `json:"sandbox,omitempty"`
	Ephemeral      bool   `json:"ephemeral,omitempty"`
	ThreadSource   string `json:"threadSource,omitempty"`
	// Config overrides config.toml keys for this thread (sandbox_workspace_write, model_providers).
	Config map[string]any `json:"config,omitempty"`
}

// ThreadSessionResult is the shared shape of thread/start, thread/resume and thread/fork.
type ThreadSessionResult struct {
	Thread         Thread          `json:"thread"`
	Model          string          `json:"model"`
	ModelProvider  string          `json:"modelProvider"`
	Cwd            string          `json:"cwd"`
	ApprovalPolicy json.RawMessage `json:"approvalPolicy"`
	Sandbox        json.RawMessage `json:"sandbox"`
}

// ThreadResumeParams for thread/resume; ExcludeTurns avoids the deprecated full hydration.
type ThreadResumeParams struct {
	ThreadID      string `json:"threadId"`
	ExcludeTurns  bool   `json:"excludeTurns,omitempty"`
	Model         string `json:"model,omitempty"`
	ModelProvider string `json:"modelProvider,omitempty"`
	Cwd           string `json:"cwd,omitempty"`
	// Config overrides config.toml keys for the resumed thread (its tool shells' environment).
	Config map[string]any `json:"config,omitempty"`
}

// ThreadForkParams for thread/fork.
type ThreadForkParams struct {
	ThreadID     string `json:"threadId"`
	Ephemeral    bool   `json:"ephemeral,omitempty"`
	ExcludeTurns bool   `json:"excludeTurns,omitempty"`
	LastTurnID   string `json:"lastTurnId,omitempty"`
	ThreadSource string `json:"threadSource,omitempty"`
}

// ThreadListParams for thread/list. Archived nil leaves it to the App Server, which lists
// unarchived threads; AncestorThreadID (experimental) lists a thread's descendants.
type ThreadListParams struct {
	Cursor           string   `json:"cursor,omitempty"`
	Limit            int      `json:"limit,omitempty"`
	Archived         *bool    `json:"archived,omitempty"`
	SourceKinds      []string `json:"sourceKinds,omitempty"`
	ModelProviders   []string `json:"modelProviders,omitempty"`
	SortKey          string   `json:"sortKey,omitempty"`
	SortDirection    string   `json:"sortDirection,omitempty"`
	SearchTerm       string   `json:"searchTerm,omitempty"`
	UseStateDBOnly   bool     `json:"useStateDbOnly,omitempty"`
	AncestorThreadID string   `json:"ancestorThreadId,omitempty"`
}

// Unarchived is Archived set to false, sent explicitly.
func Unarchived() *bool { return new(bool) }

// Page is one page of thread/list, each thread decoded as T (see ListThreadsAs).
type Page[T any] struct {
	Data            []T     `json:"data"`
	NextCursor      *string `json:"nextCursor"`
	BackwardsCursor *string `json:"backwardsCursor"`
}

// ThreadListResult is one page of thread/list.
type ThreadListResult = Page[Thread]

// ThreadReadResult is the thread/read response.
type ThreadReadResult struct {
	Thread Thread `json:"thread"`
}

// TurnsListParams for thread/turns/list. SortDirection defaults to desc (newest first).
type TurnsListParams struct {
	ThreadID      string `json:"threadId"`
	Cursor        string `json:"cursor,omitempty"`
	Limit         int    `json:"limit,omitempty"`
	ItemsView     string `json:"itemsView,omitempty"`
	SortDirection string `json:"sortDirection,omitempty"`
}

// TurnsListResult is one page of turns; cursors are opaque strings.
type TurnsListResult struct {
	Data            []Turn  `json:"data"`
	NextCursor      *string `json:"nextCursor"`
	BackwardsCursor *string `json:"backwardsCursor"`
}

// ItemsListParams for thread/items/list. The cursor is opaque JSON.
type ItemsListParams struct {
	ThreadID      string          `json:"threadId"`
	TurnID        string          `json:"turnId,omitempty"`
	Cursor        json.RawMessage `json:"cursor,omitempty"`
	Limit         int             `json:"limit,omitempty"`
	SortDirection string          `json:"sortDirection,omitempty"`
}

// ItemEntry is one item with the turn it belongs to.
type ItemEntry struct {
	TurnID        string `json:"turnId"`
	Item          Item   `json:"item"`
	StartedAtMs   *int64 `json:"startedAtMs"`
	CompletedAtMs *int64 `json:"completedAtMs"`
}

// ItemsListResult is one page of items.
type ItemsListResult struct {
	Data            []ItemEntry     `json:"data"`
	NextCursor      json.RawMessage `json:"nextCursor"`
	BackwardsCursor json.RawMessage `json:"backwardsCursor"`
}

// LoadedListResult lists the threads loaded in this App Server process.
type LoadedListResult struct {
	Data       []string `json:"data"`
	NextCursor *string  `json:"nextCursor"`
}

// UnsubscribeResult status: notLoaded | notSubscribed | unsubscribed.
type UnsubscribeResult struct {
	Status string `json:"status"`
}

// ResponseItem is a raw Responses API item for thread/inject_items, e.g. a message.
type ResponseItem struct {
	Type    string                `json:"type"`
	Role    string                `json:"role"`
	Content []ResponseItemContent `json:"content"`
}

// ResponseItemContent is input_text (user) or output_text (assistant).
type ResponseItemContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// UserMessageItem and AssistantMessageItem build injectable history items.
func UserMessageItem(text string) ResponseItem {
	return ResponseItem{Type: "message", Role: "user", Content: []ResponseItemContent{{Type: "input_text", Text: text}}}
}

// AssistantMessageItem builds an injectable assistant message.
func AssistantMessageItem(text string) ResponseItem {
	return ResponseItem{Type: "message", Role: "assistant", Content: []ResponseItemContent{{Type: "output_text", Text: text}}}
}

// TurnStartParams for turn/start.
type TurnStartParams struct {
	ThreadID string      `json:"threadId"`
	Input    []UserInput `json:"input"`
	Model    string      `json:"model,omitempty"`
	Cwd      string      `json:"cwd,omitempty"`
	// SandboxPolicy overrides the thread's sandbox for this turn and the ones after it.
	SandboxPolicy any `json:"sandboxPolicy,omitempty"`
}

// TurnResult is the turn/start response.
type TurnResult struct {
	Turn Turn `json:"turn"`
}

// TurnSteerParams for turn/steer.
type TurnSteerParams struct {
	ThreadID       string      `json:"threadId"`
	ExpectedTurnID string      `json:"expectedTurnId"`
	Input          []UserInput `json:"input"`
}

// TurnSteerResult names the steered turn.
type TurnSteerResult struct {
	TurnID string `json:"turnId"`
}

// Notification payloads used by the runtime.

// ThreadStatusChanged is thread/status/changed.
type ThreadStatusChanged struct {
	ThreadID string       `json:"threadId"`
	Status   ThreadStatus `json:"status"`
}

// TurnEvent is turn/started and turn/completed.
type TurnEvent struct {
	ThreadID string `json:"threadId"`
	Turn     Turn   `json:"turn"`
}

// ItemEvent is item/started and item/completed.
type ItemEvent struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	Item     Item   `json:"item"`
}

// AgentMessageDelta is item/agentMessage/delta.
type AgentMessageDelta struct {
	ThreadID string `json:"threadId"`
	TurnID   string `json:"turnId"`
	ItemID   string `json:"itemId"`
	Delta    string `json:"delta"`
}

// ThreadIDEvent covers thread/archived, thread/unarchived, thread/closed.
type ThreadIDEvent struct {
	ThreadID string `json:"threadId"`
}

// TokenUsageUpdated is thread/tokenUsage/updated: the thread's running total since it began
// and what the latest model request used.
type TokenUsageUpdated struct {
	ThreadID   string `json:"threadId"`
	TurnID     string `json:"turnId"`
	TokenUsage struct {
		Total              TokenBreakdown `json:"total"`
		Last               TokenBreakdown `json:"last"`
		ModelContextWindow *int64         `json:"modelContextWindow"`
	} `json:"tokenUsage"`
}

// TokenBreakdown is one set of counts of thread/tokenUsage/updated.
type TokenBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

// Counts is the breakdown in the runtime's terms.
func (b TokenBreakdown) Counts() model.TokenCounts {
	return model.TokenCounts{Input: b.InputTokens, CachedInput: b.CachedInputTokens, Output: b.OutputTokens,
		Reasoning: b.ReasoningOutputTokens, Total: b.TotalTokens}
}
