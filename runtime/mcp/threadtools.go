package mcp

import (
	"context"
	"os"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The thread tools: the agent contract of `codexhost delegate start` and `codexhost thread …`
// as MCP tools, through the same runtime methods and so the same caller policies. A native
// thread that codexhost attaches this server to (harness/native_threadtools.go) calls them
// with its own thread's token: it acts as that thread, parent of what it delegates.

type (
	delegateArgs struct {
		Harness        string   `json:"harness"`
		Task           string   `json:"task"`
		ParentThread   string   `json:"parentThread,omitempty"`
		RequestID      string   `json:"requestId,omitempty"`
		Refs           []string `json:"refs,omitempty"`
		Cwd            string   `json:"cwd,omitempty"`
		Model          string   `json:"model,omitempty"`
		Thinking       string   `json:"thinking,omitempty"`
		Approval       string   `json:"approval,omitempty"`
		Watch          bool     `json:"watch,omitempty"`
		WatchTimeoutMs int      `json:"watchTimeoutMs,omitempty"`
	}
	threadReadArgs struct {
		Thread string `json:"thread"`
		View   string `json:"view,omitempty"`
		Limit  int    `json:"limit,omitempty"`
		Cursor string `json:"cursor,omitempty"`
	}
	threadWaitArgs struct {
		Thread    string `json:"thread"`
		TimeoutMs *int   `json:"timeoutMs,omitempty"`
	}
	threadListArgs struct {
		Cwd    string `json:"cwd,omitempty"`
		AnyCwd bool   `json:"anyCwd,omitempty"`
		Parent string `json:"parent,omitempty"`
		Client string `json:"client,omitempty"`
		Ref    string `json:"ref,omitempty"`
		Limit  int    `json:"limit,omitempty"`
		Cursor string `json:"cursor,omitempty"`
		Sort   string `json:"sort,omitempty"`
	}
	threadSendArgs struct {
		Thread  string `json:"thread"`
		Message string `json:"message"`
	}
	threadOnlyArgs struct {
		Thread string `json:"thread"`
	}
	threadWatchArgs struct {
		Thread    string `json:"thread"`
		Notify    string `json:"notify,omitempty"`
		TimeoutMs int64  `json:"timeoutMs,omitempty"`
		On        string `json:"on,omitempty"`
	}
)

const threadDesc = "the thread's id or codex://threads/<id> link"

// maxWatchMs is the CLI's bound on a watch's window (model.MaxWatchTimeout), in the unit the
// tools take.
var maxWatchMs = int(model.MaxWatchTimeout.Milliseconds())

// callerWith is callerHere with the parent a caller names (--parent-thread of the CLI).
func callerWith(parent string) api.CallerHint {
	c := callerHere()
	c.ParentThread = parent
	return c
}

// callerHere is what this server knows of its caller: its working directory (Codex starts a
// thread's server in the thread's cwd). Who the caller is comes from its token.
func callerHere() api.CallerHint {
	cwd, _ := os.Getwd()
	return api.CallerHint{Cwd: cwd}
}

func threadTools() []Definition {
	maxWait := int(api.MaxToolWait.Milliseconds())
	return []Definition{
		tool("thread.delegate_start", "Delegate a task to a new child thread on a harness (harness list: codexhost harness list) and return at once with its threadId; the caller is its parent. Follow it with thread.wait (bounded) or thread.watch. The same requestId returns the same child.",
			false, false,
			object(str("harness", "the target harness id, e.g. codex", 1, 64).req(),
				str("task", "the task text for the child", 1, api.MaxTextBytes).req(),
				str("parentThread", "the delegating thread (default: the calling thread; its own tree only)", 1, 256),
				str("requestId", "idempotency key: the same id returns the same child", 1, 128),
				strList("refs", "refs to record with the delegation (issue:…, pr:…, url:…)", 0, 32, 512),
				str("cwd", "the child's working directory (default: the caller's)", 1, model.MaxPathChars),
				str("model", "the child's model (codexhost harness inspect H lists them)", 1, 128),
				str("thinking", "a thinking option of the harness (codexhost harness inspect H)", 1, 32),
				enum("approval", "Codex approval policy of a native child (default never); its requests wait in codexhost approvals", "", "never", "on-request", "untrusted"),
				boolean("watch", "also register a watch on the child for the caller", false),
				integer("watchTimeoutMs", "the watch's observation window in milliseconds (default 30 minutes, at most 7 days)", 1000, maxWatchMs, 30*60*1000)),
			func(ctx context.Context, rt Runtime, a delegateArgs) (api.DelegateStartResult, error) {
				p := api.DelegateStartParams{Caller: callerWith(a.ParentThread), Harness: a.Harness, Task: a.Task, RequestID: a.RequestID, Refs: a.Refs,
					Cwd: a.Cwd, Model: a.Model, Thinking: a.Thinking, Approval: a.Approval, Watch: a.Watch, WatchTimeoutMs: a.WatchTimeoutMs}
				return api.DelegateStart.Call(ctx, rt, p)
			}),
		tool("thread.read", "Read a thread without changing it: its status (creating, running, completed, failed, interrupted) and the result of its latest finished turn, or a page of its messages. Read-only.",
			true, false,
			object(str("thread", threadDesc, 1, 256).req(),
				enum("view", "result (the latest turn's outcome) or messages (paged, oldest first)", "result", "result", "messages"),
				integer("limit", "messages per page, 1 to 100", 1, 100, 25),
				str("cursor", "nextCursor of the previous page", 1, 1024)),
			func(ctx context.Context, rt Runtime, a threadReadArgs) (api.ThreadReadResult, error) {
				return api.ThreadRead.Call(ctx, rt, api.ThreadReadParams(a))
			}),
		tool("thread.wait", "Wait until a thread is not running, then read it (its final text is in result). Bounded: at most 600000 ms inside a turn; timedOut is true when it was still running. Read-only.",
			true, false,
			object(str("thread", threadDesc, 1, 256).req(),
				integer("timeoutMs", "give up after this many milliseconds, 0 to 600000; 0 reads at once", 0, maxWait, 30000)),
			func(ctx context.Context, rt Runtime, a threadWaitArgs) (api.ThreadReadResult, error) {
				p := api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: a.Thread}, TimeoutMs: a.TimeoutMs}
				return api.ThreadWait.Call(ctx, rt, p)
			}),
		tool("thread.list", "List the caller's own threads (default: the caller's cwd, newest first). Read-only.",
			true, false,
			object(str("cwd", "only threads in this directory", 1, model.MaxPathChars),
				boolean("anyCwd", "do not filter by directory", false),
				str("parent", "only children delegated by this thread", 1, 256),
				str("client", "only threads started by this client", 1, 128),
				str("ref", "only threads carrying this ref", 1, 512),
				integer("limit", "threads per page, 1 to 100", 1, 100, 25),
				str("cursor", "nextCursor of the previous page", 1, 1024),
				enum("sort", "the order of the threads", "created-desc", api.SortOrders...)),
			func(ctx context.Context, rt Runtime, a threadListArgs) (api.ThreadListResult, error) {
				p := api.ThreadListParams{Caller: callerHere(), Cwd: a.Cwd, AnyCwd: a.AnyCwd, Parent: a.Parent, Client: a.Client, Ref: a.Ref,
					Limit: a.Limit, Cursor: a.Cursor, Sort: a.Sort}
				return api.ThreadList.Call(ctx, rt, p)
			}),
		tool("thread.send", "Start a turn on an idle thread with a message (THREAD_BUSY while it runs; never queued).",
			false, false,
			object(str("thread", threadDesc, 1, 256).req(),
				str("message", "the message", 1, api.MaxTextBytes).req()),
			func(ctx context.Context, rt Runtime, a threadSendArgs) (api.ThreadSendResult, error) {
				return api.ThreadSend.Call(ctx, rt, api.ThreadSendParams{Thread: a.Thread, Message: a.Message})
			}),
		tool("thread.cancel", "Interrupt a thread's running turn (cancelled is false on an idle thread).",
			false, true,
			object(str("thread", threadDesc, 1, 256).req()),
			func(ctx context.Context, rt Runtime, a threadOnlyArgs) (api.ThreadCancelResult, error) {
				return api.ThreadCancel.Call(ctx, rt, api.ThreadCancelParams{Thread: a.Thread, IdleOK: true})
			}),
		tool("thread.watch", "Register a one-shot notification: when the thread stops (or, with on approval, first waits for an approval; or the window passes), a message is sent to the caller's thread (or notify). alreadyTerminal when it had stopped.",
			false, false,
			object(str("thread", threadDesc, 1, 256).req(),
				str("notify", "who is notified: a thread id or link, or client:NAME (default: the caller's thread, else the calling client)", 1, 256),
				integer("timeoutMs", "the observation window in milliseconds (default 30 minutes, at most 7 days)", 1000, maxWatchMs, 30*60*1000),
				enum("on", "what notifies: stop (the thread stops) or approval (its first approval that waits for an answer)", "stop", "stop", "approval")),
			func(ctx context.Context, rt Runtime, a threadWatchArgs) (api.WatchResult, error) {
				p := api.ThreadWatchParams{Caller: callerHere(), Thread: a.Thread, Notify: a.Notify, TimeoutMs: a.TimeoutMs, On: a.On}
				return api.ThreadWatch.Call(ctx, rt, p)
			}),
	}
}
