package handoff

import (
	"context"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// ThreadSpec is the thread/start of a task: its cwd, sandbox, approvals and model provider.
type ThreadSpec struct {
	Cwd string
	// Sandbox is thread/start's legacy sandbox; tasks leave it empty and set a permission
	// profile in Config instead (see Sandbox.threadConfig).
	Sandbox       string
	Approval      string // never, unless the task asked for a policy within [handoff] max_approval
	Model         string
	ModelProvider string
	Config        map[string]any
	// HideEnv names variables the thread's tool shells must not see: the provider's key,
	// which only the App Server needs.
	HideEnv []string
	// Title names the thread in Codex (the handoff's title, model.TaskTitle).
	Title string
	// Goal marks a goal thread (acceptance criteria or test commands), and Caller is who
	// starts it: the thread is registered as a codexhost thread of that caller.
	Goal   bool
	Caller api.Caller
}

// Runner is the native harness as tasks need it. The host adapts its Codex harness to it.
type Runner interface {
	// StartThread creates an idle thread with the spec and returns its id and the sandbox the
	// App Server reports it applied.
	StartThread(ctx context.Context, spec ThreadSpec) (model.ThreadID, string, error)
	// StartTurn starts the thread's turn with text under sandboxPolicy (turn/start's).
	StartTurn(ctx context.Context, id model.ThreadID, text string, sandboxPolicy map[string]any) (turnID string, err error)
	// Interrupt interrupts the running turn.
	Interrupt(ctx context.Context, id model.ThreadID) error
	// Messages reads the thread's user and assistant messages, oldest first.
	Messages(ctx context.Context, id model.ThreadID, limit int) ([]model.Message, error)
}
