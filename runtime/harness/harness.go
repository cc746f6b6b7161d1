// Package harness runs coding-agent threads: natively through the Codex App Server, or by
// running an external command per turn. The host sees both through one interface.
package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// StartRequest creates a thread. No turn runs until Send.
type StartRequest struct {
	Cwd   string
	Model string
	// Thinking is a thinking option of the harness (harness inspect; checked by the caller):
	// native threads get it as Codex's model_reasoning_effort, external ones as
	// CODEXHOST_EFFORT when no Effort is given.
	Thinking string
	// Effort is the thread's reasoning effort, one of Efforts; "" keeps the harness's default.
	// It stays with the thread: native threads hold it in Codex's config, external ones in
	// their transcript, and every turn of an external thread gets it as CODEXHOST_EFFORT.
	Effort string
	// Sandbox and Approval, when set, are the native thread's Codex sandbox mode and approval
	// policy instead of the harness's defaults: what a thread creates runs with its author's
	// (threads/capability.go). External harnesses cannot confine their commands and ignore them.
	Sandbox, Approval string
	// Title names a native thread in Codex (its task's first line, model.TaskTitle), so the
	// fleet and every Codex client show it; records keep no task text. "" leaves it unnamed.
	Title string
}

// Efforts are the reasoning efforts a thread may be started with.
var Efforts = []string{"low", "medium", "high", "xhigh", "max"}

// checkEffort refuses an effort outside Efforts.
func checkEffort(effort string) error {
	if effort == "" || slices.Contains(Efforts, effort) {
		return nil
	}
	return model.Errorf(model.CodeInvalidArgument, "use one of: "+strings.Join(Efforts, ", "), "unknown reasoning effort %q", effort)
}

// ReadRequest selects what Read returns. Messages are paged newest page first; within a page
// they are oldest first. Cursor is opaque and harness-specific.
type ReadRequest struct {
	Messages bool
	Limit    int
	Cursor   string
}

// Snapshot is what a harness knows about a thread. The host adds origin and refs.
type Snapshot struct {
	Info       model.ThreadInfo
	Result     *model.Result
	Messages   []model.Message
	NextCursor string
}

// Event reports a change of a thread's status or of its turn.
type Event struct {
	Thread     model.ThreadID
	Status     string // model.Thread*
	TurnID     string
	TurnStatus string // model.Turn*; set when a turn started or ended
	// Progress marks a message of the running turn that just completed: the transcript grew,
	// the status did not change (watchers of stops ignore it).
	Progress bool
	// Delta, when set, is a fragment of the running turn's assistant text
	// (native_stream.go); nothing else of the event changed.
	Delta *Delta
	// Usage, when set, is a report of the thread's token usage (native_usage.go, or an
	// external turn's usage line); with no TurnStatus nothing else of the event changed.
	Usage *model.UsageReport
	At    time.Time
}

// Harness is one way of running threads.
type Harness interface {
	Name() string
	Kind() string // model.HarnessNative or model.HarnessExternal

	// Start creates an idle thread and returns its id.
	Start(ctx context.Context, req StartRequest) (model.ThreadID, error)
	// Send starts a turn with text. It fails with THREAD_BUSY when a turn is active: it
	// never queues and never steers.
	Send(ctx context.Context, id model.ThreadID, text string) (turnID string, err error)
	// Cancel interrupts the active turn; FAILED_PRECONDITION when none is active.
	Cancel(ctx context.Context, id model.ThreadID) (turnID string, err error)
	// Read returns a snapshot without changing the thread in any way. THREAD_NOT_FOUND when
	// the harness has no such thread.
	Read(ctx context.Context, id model.ThreadID, req ReadRequest) (Snapshot, error)
	// Owns reports whether the thread belongs to this harness, cheaply.
	Owns(ctx context.Context, id model.ThreadID) bool
	// Active lists the threads that have a turn running now (for caller inference).
	Active() []model.ThreadID
	// Close stops every running turn and releases processes.
	Close() error
}

// Env is the environment a harness gives the processes it starts (besides the thread id).
type Env struct {
	CLIPath  string // CODEXHOST_CLI_PATH
	Endpoint string // CODEXHOST_RUNTIME_ENDPOINT
	// Tokens mints each thread's CODEXHOST_RUNTIME_TOKEN, bound to that thread. Without it
	// every process gets Token (tests of the harness alone).
	Tokens *Tokens
	Token  string
}

// Names of the whitelisted variables.
const (
	EnvCLIPath  = "CODEXHOST_CLI_PATH"
	EnvEndpoint = api.EnvEndpoint
	EnvToken    = api.EnvToken
	EnvThreadID = api.EnvThreadID
	EnvEffort   = "CODEXHOST_EFFORT"
)

// TokenFor is the runtime token of the processes of thread id.
func (e Env) TokenFor(id model.ThreadID) string {
	if e.Tokens != nil && id != "" {
		return e.Tokens.ForThread(id)
	}
	return e.Token
}

// Vars renders the connection parameters, with token, as KEY=VALUE entries.
func (e Env) Vars(token string) []string {
	return []string{EnvCLIPath + "=" + e.CLIPath, EnvEndpoint + "=" + e.Endpoint, EnvToken + "=" + token}
}

// notStartedError marks a Send failure that provably started no turn, so a caller may retry
// it without risking a second turn.
type notStartedError struct{ err error }

func (e notStartedError) Error() string { return e.err.Error() }
func (e notStartedError) Unwrap() error { return e.err }

// NotStarted wraps err as a failure that started no turn.
func NotStarted(err error) error {
	if err == nil {
		return nil
	}
	return notStartedError{err}
}

// IsNotStarted reports whether a Send failure provably started no turn.
func IsNotStarted(err error) bool {
	var ns notStartedError
	return errors.As(err, &ns)
}
