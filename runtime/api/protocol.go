// Package api is the runtime API: JSON-RPC 2.0, one message per line, over the home's Unix
// socket and an optional loopback TCP listener. Every connection authenticates first. The CLI
// and the terminal app are both clients of it; neither reaches the store directly.
package api

import (
	"context"
	"encoding/json"

	"github.com/codexhost/codexhost/model"
)

// Method names.
const (
	MethodAuth            = "auth"
	MethodHarnessList     = "harness.list"
	MethodDelegateStart   = "delegate.start"
	MethodThreadRead      = "thread.read"
	MethodThreadWait      = "thread.wait"
	MethodThreadList      = "thread.list"
	MethodThreadSend      = "thread.send"
	MethodThreadCancel    = "thread.cancel"
	MethodEventsSubscribe = "events.subscribe"
	MethodRuntimeInfo     = "runtime.info"
	MethodThreadWatch     = "thread.watch"
	MethodThreadWatches   = "thread.watches"
	MethodClientEvents    = "client.events"
	MethodRuntimeForward  = "runtime.forward"

	// NotificationEvent carries one Event to a subscribed connection.
	NotificationEvent = "event"
)

// Caller kinds, decided by the token a connection authenticated with.
const (
	CallerRuntime = "runtime" // a process the host started (runtime token)
	CallerClient  = "client"  // a named external client (client token)
)

// Caller is who is on the other end of a connection.
type Caller struct {
	Kind   string `json:"kind"`
	Client string `json:"client,omitempty"`
	// Thread is the thread an agent acts for (its token is bound to it); "" for clients and
	// for the runtime's own in-process callers.
	Thread string `json:"thread,omitempty"`
	// Unbound marks an agent whose token proves no thread (the App Server's own, which it
	// passes to the processes it starts outside a tool shell): it reaches no principal.
	Unbound bool `json:"unbound,omitempty"`
}

// ForwardParams is one request a follower runtime (a second runtime on a held home) passes
// to the runtime that holds the home, on behalf of the caller it authenticated. Only the
// home's operator client may send it.
type ForwardParams struct {
	Caller Caller          `json:"caller"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// AuthParams is the first request of every connection.
type AuthParams struct {
	Token string `json:"token"`
}

// AuthResult echoes the authenticated caller and the runtime version.
type AuthResult struct {
	Caller  Caller `json:"caller"`
	Version string `json:"version"`
}

// CallerHint is what the CLI knows about its caller; the runtime resolves the rest.
type CallerHint struct {
	ParentThread string `json:"parentThread,omitempty"` // --parent-thread
	EnvThread    string `json:"envThread,omitempty"`    // CODEXHOST_THREAD_ID
	Cwd          string `json:"cwd,omitempty"`          // the caller's working directory
}

// HarnessInfo describes one registered harness.
type HarnessInfo struct {
	Name string `json:"name" doc:"the harness id, as --harness takes it"`
	Kind string `json:"kind" doc:"native (Codex through the App Server) or external (a command per turn)"`
}

// HarnessListResult lists the harnesses: their ids (the public shape) and their details.
type HarnessListResult struct {
	IDs       []string      `json:"harnesses" doc:"the harness ids, native first"`
	Harnesses []HarnessInfo `json:"details" doc:"each harness with its kind, in the same order"`
}

// DelegateStartParams starts (or finds, when idempotent) a delegated child thread.
type DelegateStartParams struct {
	Caller    CallerHint `json:"caller"`
	Harness   string     `json:"harness"`
	Task      string     `json:"task"`
	RequestID string     `json:"requestId,omitempty"`
	Refs      []string   `json:"refs,omitempty"`
	Cwd       string     `json:"cwd,omitempty"`
	Model     string     `json:"model,omitempty"`
	// Thinking is a thinking (reasoning effort) option of the harness (harness.inspect).
	Thinking string `json:"thinking,omitempty"`
	// Watch registers, in the same call, a watch on the child for the resolved caller.
	Watch          bool `json:"watch,omitempty"`
	WatchTimeoutMs int  `json:"watchTimeoutMs,omitempty"`
	// Approval is the child's Codex approval policy (model.ApprovalPolicies); "" keeps the
	// harness's (never). A native author's child never asks less than its author.
	Approval string `json:"approval,omitempty"`
}

// DelegateStartResult names the child; Existing is true when an earlier delegation matched.
type DelegateStartResult struct {
	DelegationID   string           `json:"delegationId,omitempty" doc:"id of this delegation (from a parent thread or a client); the same on a repeated request"`
	ThreadID       string           `json:"threadId" doc:"the child thread's id"`
	TurnID         string           `json:"turnId" doc:"the child's first turn (null when none started)"`
	HarnessID      string           `json:"harnessId" doc:"the harness the child runs on"`
	DeepLink       string           `json:"deepLink" doc:"codex://threads/<threadId>"`
	Status         string           `json:"status" doc:"the child's status: creating, running, completed, failed or interrupted"`
	Cwd            string           `json:"cwd,omitempty" doc:"the child's working directory"`
	ParentThreadID string           `json:"parentThreadId,omitempty" doc:"the delegating thread, when a thread delegated"`
	Next           *NextCommands    `json:"next,omitempty" doc:"ready-to-run commands to follow the child"`
	Thread         model.ThreadInfo `json:"thread" doc:"the child thread"`
	Existing       bool             `json:"existing" doc:"true when an earlier identical request matched: no new thread was started"`
	Watch          *WatchResult     `json:"watch,omitempty" doc:"the watch registered on the child, with --watch true"`
}

// ThreadWatchParams registers a one-shot stop notification.
type ThreadWatchParams struct {
	Caller    CallerHint `json:"caller"`
	Thread    string     `json:"thread"`
	Notify    string     `json:"notify,omitempty"` // a thread, or client:NAME
	TimeoutMs int64      `json:"timeoutMs,omitempty"`
	// On is what notifies: "" or "stop" for the thread's stop, "approval" for an approval of
	// it that waits for an answer.
	On string `json:"on,omitempty"`
}

// WatchResult is the answer of thread.watch: "watching" with the record, or "alreadyTerminal"
// with the thread's status and nothing registered.
type WatchResult struct {
	ThreadID       string       `json:"threadId,omitempty" doc:"the watched thread"`
	NotifyThreadID string       `json:"notifyThreadId,omitempty" doc:"who is notified: a thread id, or client:NAME"`
	State          string       `json:"state" doc:"watching (registered), or alreadyTerminal (the thread had stopped: nothing registered)"`
	Status         string       `json:"status,omitempty" doc:"the watched thread's status: running while watching, else how it stopped"`
	TimeoutMs      int64        `json:"timeoutMs,omitempty" doc:"the observation window in milliseconds, from registration"`
	Watch          *model.Watch `json:"watch,omitempty" doc:"the watch record"`
	Existing       bool         `json:"existing,omitempty" doc:"true when the same pair was already watched: its deadline is kept"`
	SourceTurn     string       `json:"sourceTurn,omitempty" doc:"the turn that ended, for alreadyTerminal"`
}

// WatchesResult lists watches by state.
type WatchesResult struct {
	Watches       []WatchEntry  `json:"watches" doc:"every listed watch, oldest registration first within each state"`
	Watching      []model.Watch `json:"watching" doc:"watches still observing their thread"`
	Pending       []model.Watch `json:"pending" doc:"watches whose outcome is known and whose notification is not delivered yet"`
	Undeliverable []model.Watch `json:"undeliverable" doc:"the latest 50 watches given up on, with the reason"`
}

// ClientEventsParams reads the calling client's event log after a cursor.
type ClientEventsParams struct {
	After string `json:"after,omitempty"`
	Limit int    `json:"limit,omitempty"`
	// WaitMs, when no entry follows After, waits up to this long for one (client events
	// --follow --timeout-ms); 0 answers at once.
	WaitMs int64 `json:"waitMs,omitempty"`
}

// ClientEventsResult is a page of the log; NextCursor is the cursor of the last event.
type ClientEventsResult struct {
	Events     []model.ClientEvent `json:"events"`
	NextCursor string              `json:"nextCursor,omitempty"`
	TimedOut   bool                `json:"timedOut,omitempty"` // a wait ended with no entry
}

// ThreadReadParams reads a thread without changing it.
type ThreadReadParams struct {
	Thread string `json:"thread"`
	View   string `json:"view,omitempty"`
	Limit  int    `json:"limit,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// ThreadReadResult is a snapshot of a thread; Messages only in the messages view.
// In JSON, result is always present (availability pending while no turn finished) and the
// messages view always has nextCursor (null on the last page): see public.go.
type ThreadReadResult struct {
	ThreadID   string              `json:"threadId" doc:"the thread's id"`
	HarnessID  string              `json:"harnessId" doc:"the harness it runs on"`
	Status     string              `json:"status" doc:"creating, running, completed, failed or interrupted"`
	Turn       *TurnRef            `json:"turn" doc:"the latest turn, null when there is none"`
	Progress   *model.TurnProgress `json:"progress,omitempty" doc:"what the running turn did so far, when its harness reports it"`
	Thread     model.ThreadInfo    `json:"thread" doc:"the thread"`
	Result     *model.Result       `json:"result,omitempty" doc:"the outcome of the latest finished turn"`
	Messages   []model.Message     `json:"messages,omitempty" doc:"--view messages: a page of messages, oldest first"`
	HasMore    bool                `json:"hasMore" doc:"true when older messages remain: pass nextCursor as --cursor"`
	NextCursor string              `json:"nextCursor,omitempty" doc:"--view messages: the cursor of the next (older) page, null on the last"`
	Approvals  []model.Approval    `json:"approvals,omitempty" doc:"--view messages: the approvals asked in this page's turns, oldest first: what was asked, the decision, who decided and when"`
	TimedOut   *bool               `json:"timedOut,omitempty" doc:"thread wait only: true when the thread was still running at the timeout"`
}

// ThreadWaitParams waits until the thread is not active or the timeout passes.
type ThreadWaitParams struct {
	ThreadReadParams
	// TimeoutMs bounds the wait; nil is the default (30 s), 0 reads once at once.
	TimeoutMs *int `json:"timeoutMs,omitempty"`
}

// WaitMs is a ThreadWaitParams timeout.
func WaitMs(ms int) *int { return &ms }

// Sort orders of thread.list.
var SortOrders = []string{"created-desc", "created-asc", "updated-desc", "updated-asc", "recency-desc", "recency-asc"}

// ThreadListParams filters and pages threads.
type ThreadListParams struct {
	Caller CallerHint `json:"caller"`
	Cwd    string     `json:"cwd,omitempty"`
	AnyCwd bool       `json:"anyCwd,omitempty"`
	Parent string     `json:"parent,omitempty"`
	Client string     `json:"client,omitempty"`
	Ref    string     `json:"ref,omitempty"`
	Limit  int        `json:"limit,omitempty"`
	Cursor string     `json:"cursor,omitempty"`
	Sort   string     `json:"sort,omitempty"`
	// OutsideCatalog keeps only the threads no catalog host lists as a session (see
	// SessionLink): the fleet lists the others under their host.
	OutsideCatalog bool `json:"outsideCatalog,omitempty"`
}

// ThreadListResult is one page.
// The CLI prints nextCursor as null on the last page (the runtime API leaves it out).
type ThreadListResult struct {
	Threads    []model.ThreadInfo `json:"threads" doc:"one page of threads"`
	NextCursor string             `json:"nextCursor,omitempty" doc:"the cursor of the next page, null on the last"`
}

// ThreadSendParams starts a turn on an idle thread.
type ThreadSendParams struct {
	Thread  string `json:"thread"`
	Message string `json:"message"`
	// Model is refused: a turn runs with its thread's model, and a supervised thread is
	// model-locked. Named so that asking for a model fails instead of being ignored.
	Model string `json:"model,omitempty"`
}

// ThreadSendResult names the started turn.
type ThreadSendResult struct {
	ThreadID  string           `json:"threadId" doc:"the thread's id"`
	TurnID    string           `json:"turnId" doc:"the turn the message started"`
	HarnessID string           `json:"harnessId" doc:"the harness it runs on"`
	Status    string           `json:"status" doc:"the thread's status after the send: running"`
	Next      *NextCommands    `json:"next,omitempty" doc:"ready-to-run commands to follow the turn"`
	Thread    model.ThreadInfo `json:"thread" doc:"the thread"`
}

// ThreadCancelParams interrupts the active turn.
type ThreadCancelParams struct {
	Thread string `json:"thread"`
	// IdleOK answers cancelled: false for a thread with no running turn instead of
	// FAILED_PRECONDITION (the public CLI's `thread cancel`).
	IdleOK bool `json:"idleOk,omitempty"`
}

// ThreadCancelResult names the interrupted turn.
type ThreadCancelResult struct {
	ThreadID  string           `json:"threadId" doc:"the thread's id"`
	TurnID    string           `json:"turnId" doc:"the interrupted turn (null when nothing was running)"`
	HarnessID string           `json:"harnessId" doc:"the harness it runs on"`
	Cancelled bool             `json:"cancelled" doc:"true when a running turn was interrupted; false on an idle thread"`
	Thread    model.ThreadInfo `json:"thread" doc:"the thread"`
}

// RuntimeInfo describes the running runtime.
type RuntimeInfo struct {
	Version   string   `json:"version"`
	Home      string   `json:"home"`
	Endpoints []string `json:"endpoints"`
	Pid       int      `json:"pid"`
}

// Handler serves authenticated requests. The server has already checked the token; caller
// says who is asking. Errors should be *model.Error so the code reaches the client.
type Handler interface {
	Authenticate(token string) (Caller, bool)
	Handle(ctx context.Context, caller Caller, method string, params json.RawMessage) (any, error)
	// Subscribe registers fn for events until the context ends. The server calls it once per
	// subscribed connection and waits for it, so it must register and return. fn never blocks
	// and is safe to call from any goroutine, also after ctx ended (it then does nothing).
	Subscribe(ctx context.Context, fn func(Event))
	// SubscribeCaller is Subscribe for an authenticated connection: fn gets only the events
	// caller may see.
	SubscribeCaller(ctx context.Context, caller Caller, fn func(Event))
	// Authorize checks a caller against the policy of a method the server serves itself
	// (events.subscribe), so that every method's policy lives in the handler's one table.
	Authorize(caller Caller, method string) error
}
