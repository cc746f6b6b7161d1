package model

import "time"

// Supervision states of a supervised thread: a branch of a native source thread that
// codexhost continues instead of resuming the source.
const (
	// SupervisionPending: no canonical Codex thread exists yet; the first send creates it.
	SupervisionPending = "pending"
	// SupervisionBound: every turn runs on the canonical thread.
	SupervisionBound = "bound"
)

// BindingNodeSession is the binding of a paired node's thread: the supervised thread is bound
// to that exact native thread (no fork, no canonical branch), and each turn runs
// `codex exec resume` on the node.
const BindingNodeSession = "codex-cli-node-session"

// Supervision binds a supervised thread (a codexhost id) to its source and, once its first
// turn ran, to its canonical native thread. It holds ids, state and the model pair Codex chose
// at the first turn; never conversation content (the bounded history lives in a file of the
// home). Version 1 is the first shape; newer fields must be optional.
type Supervision struct {
	V      int      `json:"v"`
	Thread ThreadID `json:"thread"` // the supervised thread
	Host   string   `json:"host"`   // catalog host of the source
	Source ThreadID `json:"source"`
	State  string   `json:"state"`
	// Binding is BindingNodeSession for a node's thread; empty for a branch of a local source.
	Binding string `json:"binding,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Canonical, Model and ModelProvider are set when the binding is committed: the thread
	// started for the branch, with the pair Codex returned when the source snapshot was pinned.
	Canonical     ThreadID  `json:"canonical,omitempty"`
	Model         string    `json:"model,omitempty"`
	ModelProvider string    `json:"modelProvider,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
	BoundAt       time.Time `json:"boundAt,omitzero"`
}
