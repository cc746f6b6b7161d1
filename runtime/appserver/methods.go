package appserver

import (
	"context"
	"encoding/json"
)

// Method names of the App Server protocol. Nothing outside this package spells one: callers
// use the typed calls below, and a Caller that maps methods elsewhere (a paired node) or
// fails one on purpose (a test) compares with these.
const (
	MethodThreadStart       = "thread/start"
	MethodThreadResume      = "thread/resume"
	MethodThreadFork        = "thread/fork"
	MethodThreadList        = "thread/list"
	MethodThreadRead        = "thread/read"
	MethodTurnsList         = "thread/turns/list"
	MethodItemsList         = "thread/items/list"
	MethodThreadArchive     = "thread/archive"
	MethodThreadUnarchive   = "thread/unarchive"
	MethodThreadUnsubscribe = "thread/unsubscribe"
	MethodThreadInjectItems = "thread/inject_items"
	MethodThreadLoadedList  = "thread/loaded/list"
	MethodThreadSetName     = "thread/name/set"
	MethodTurnStart         = "turn/start"
	MethodTurnSteer         = "turn/steer"
	MethodTurnInterrupt     = "turn/interrupt"
	methodInitialize        = "initialize"
	methodInitialized       = "initialized"
)

// Notification methods.
const (
	NoteThreadStarted       = "thread/started"
	NoteThreadStatusChanged = "thread/status/changed"
	NoteThreadClosed        = "thread/closed"
	NoteThreadArchived      = "thread/archived"
	NoteThreadUnarchived    = "thread/unarchived"
	NoteThreadDeleted       = "thread/deleted"
	NoteThreadNameUpdated   = "thread/name/updated"
	NoteTurnStarted         = "turn/started"
	NoteTurnCompleted       = "turn/completed"
	NoteItemCompleted       = "item/completed"
	NoteAgentMessageDelta   = "item/agentMessage/delta"
	NoteItemStarted         = "item/started"
	NoteTokenUsageUpdated   = "thread/tokenUsage/updated"
)

// Caller sends one request and decodes its result into out (which may be nil). *Client is
// one; so is anything that answers these methods for an App Server reached another way.
type Caller interface {
	Call(ctx context.Context, method string, params, out any) error
}

// Calls are the typed calls of the App Server over a Caller. *Client embeds them over itself;
// On gives them over any other Caller.
type Calls struct{ c Caller }

// On returns the typed calls over c.
func On(c Caller) Calls { return Calls{c} }

// ThreadStart creates a thread (not on disk until its first turn).
func (m Calls) ThreadStart(ctx context.Context, p ThreadStartParams) (ThreadSessionResult, error) {
	return call[ThreadSessionResult](ctx, m.c, MethodThreadStart, p)
}

// ThreadSetName sets a thread's title, which every Codex client shows (thread/list's name).
// It works on a thread without a turn yet: the name is written with the first turn.
func (m Calls) ThreadSetName(ctx context.Context, threadID, name string) error {
	return m.c.Call(ctx, MethodThreadSetName, map[string]string{"threadId": threadID, "name": name}, nil)
}

// ThreadResume loads a stored thread into this process; needed before turn/start after a
// restart or unload. Fails while another process holds the thread ("active writer").
func (m Calls) ThreadResume(ctx context.Context, p ThreadResumeParams) (ThreadSessionResult, error) {
	return call[ThreadSessionResult](ctx, m.c, MethodThreadResume, p)
}

// ThreadFork branches a thread.
func (m Calls) ThreadFork(ctx context.Context, p ThreadForkParams) (ThreadSessionResult, error) {
	return call[ThreadSessionResult](ctx, m.c, MethodThreadFork, p)
}

// ThreadList pages stored threads (newest created first by default).
func (m Calls) ThreadList(ctx context.Context, p ThreadListParams) (ThreadListResult, error) {
	return ListThreadsAs[Thread](ctx, m.c, p)
}

// ThreadRead reads a thread's metadata without turns; it never loads or changes the thread.
func (m Calls) ThreadRead(ctx context.Context, threadID string) (Thread, error) {
	return ReadThreadAs[Thread](ctx, m.c, threadID)
}

// TurnsList pages a thread's turns, newest first unless SortDirection is "asc".
func (m Calls) TurnsList(ctx context.Context, p TurnsListParams) (TurnsListResult, error) {
	return call[TurnsListResult](ctx, m.c, MethodTurnsList, p)
}

// TurnsListRaw is TurnsList with the page kept as the App Server sent it, for a caller that
// passes it on (bounded) without reading it.
func (m Calls) TurnsListRaw(ctx context.Context, p TurnsListParams) (json.RawMessage, error) {
	return call[json.RawMessage](ctx, m.c, MethodTurnsList, p)
}

// ItemsList pages a thread's items.
func (m Calls) ItemsList(ctx context.Context, p ItemsListParams) (ItemsListResult, error) {
	return call[ItemsListResult](ctx, m.c, MethodItemsList, p)
}

// ThreadArchive moves a thread to the archive (and unloads it).
func (m Calls) ThreadArchive(ctx context.Context, threadID string) error {
	return m.c.Call(ctx, MethodThreadArchive, threadIDParams{threadID}, nil)
}

// ThreadUnarchive restores an archived thread.
func (m Calls) ThreadUnarchive(ctx context.Context, threadID string) (Thread, error) {
	var r ThreadReadResult
	err := m.c.Call(ctx, MethodThreadUnarchive, threadIDParams{threadID}, &r)
	return r.Thread, err
}

// ThreadUnsubscribe stops this connection's notifications for a thread.
func (m Calls) ThreadUnsubscribe(ctx context.Context, threadID string) (UnsubscribeResult, error) {
	return call[UnsubscribeResult](ctx, m.c, MethodThreadUnsubscribe, threadIDParams{threadID})
}

// ThreadInjectItems appends raw Responses items to the model-visible history.
func (m Calls) ThreadInjectItems(ctx context.Context, threadID string, items []ResponseItem) error {
	return m.c.Call(ctx, MethodThreadInjectItems, injectItemsParams{threadID, items}, nil)
}

// ThreadLoadedList lists the first page of the threads loaded in this App Server process.
func (m Calls) ThreadLoadedList(ctx context.Context) (LoadedListResult, error) {
	return m.ThreadLoadedPage(ctx, "")
}

// ThreadLoadedPage lists the loaded threads from cursor ("" for the first page).
func (m Calls) ThreadLoadedPage(ctx context.Context, cursor string) (LoadedListResult, error) {
	return call[LoadedListResult](ctx, m.c, MethodThreadLoadedList, loadedListParams{cursor})
}

// TurnStart starts a turn. On a thread with an active turn the App Server steers that turn
// instead and returns its id: callers that must not steer check the status first.
func (m Calls) TurnStart(ctx context.Context, p TurnStartParams) (Turn, error) {
	var r TurnResult
	err := m.c.Call(ctx, MethodTurnStart, p, &r)
	return r.Turn, err
}

// TurnSteer adds input to the active turn and returns the id of the turn it steered.
func (m Calls) TurnSteer(ctx context.Context, p TurnSteerParams) (string, error) {
	var r TurnSteerResult
	err := m.c.Call(ctx, MethodTurnSteer, p, &r)
	return r.TurnID, err
}

// TurnInterrupt stops the active turn; it ends as "interrupted".
func (m Calls) TurnInterrupt(ctx context.Context, threadID, turnID string) error {
	return m.c.Call(ctx, MethodTurnInterrupt, turnIDParams{threadID, turnID}, nil)
}

// ReadThreadAs is thread/read with the thread decoded as T: Thread, a narrower projection
// (so that fields a caller never shows are never read), or json.RawMessage to keep it whole.
func ReadThreadAs[T any](ctx context.Context, c Caller, threadID string) (T, error) {
	var r struct {
		Thread T `json:"thread"`
	}
	err := c.Call(ctx, MethodThreadRead, threadIDParams{threadID}, &r)
	return r.Thread, err
}

// ListThreadsAs is one page of thread/list with each thread decoded as T (see ReadThreadAs).
func ListThreadsAs[T any](ctx context.Context, c Caller, p ThreadListParams) (Page[T], error) {
	return call[Page[T]](ctx, c, MethodThreadList, p)
}

// The parameter shapes of the calls that take only ids.
type (
	threadIDParams struct {
		ThreadID string `json:"threadId"`
	}
	turnIDParams struct {
		ThreadID string `json:"threadId"`
		TurnID   string `json:"turnId"`
	}
	injectItemsParams struct {
		ThreadID string         `json:"threadId"`
		Items    []ResponseItem `json:"items"`
	}
	loadedListParams struct {
		Cursor string `json:"cursor,omitempty"`
	}
)

// call runs one request and decodes its answer. The answer is read only after the call
// returns: `return r, c.Call(..., &r)` leaves the order of the two unspecified.
func call[R any](ctx context.Context, c Caller, method string, params any) (R, error) {
	var r R
	err := c.Call(ctx, method, params, &r)
	return r, err
}

// MethodConfigRead reads the effective configuration.
const MethodConfigRead = "config/read"

// ConfigSandbox is the part of config/read codexhost needs: a thread's confinement, and the
// model a thread runs when none is asked for.
type ConfigSandbox struct {
	Model          string `json:"model"`
	SandboxMode    string `json:"sandbox_mode"`
	WorkspaceWrite *struct {
		NetworkAccess bool `json:"network_access"`
	} `json:"sandbox_workspace_write"`
}

// ConfigRead returns the sandbox settings in effect for a thread started in cwd.
func (m Calls) ConfigRead(ctx context.Context, cwd string) (ConfigSandbox, error) {
	res, err := call[struct {
		Config ConfigSandbox `json:"config"`
	}](ctx, m.c, MethodConfigRead, map[string]any{"cwd": cwd})
	return res.Config, err
}
