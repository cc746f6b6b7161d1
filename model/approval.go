package model

import "time"

// Approvals: what a native thread's Codex asks before it runs a command or changes files
// outside what its approval policy allows, held by the runtime until one owner answers.

// Approval policies a thread may run with (Codex's approvalPolicy).
const (
	ApprovalNever     = "never"
	ApprovalOnRequest = "on-request"
	ApprovalUntrusted = "untrusted"
)

// ApprovalPolicies are the values --approval takes.
var ApprovalPolicies = []string{ApprovalNever, ApprovalOnRequest, ApprovalUntrusted}

// ApprovalWithin reports whether a thread created by an author running under approval policy
// author may run under child: capability never widens through delegation. Never lets nothing
// out of the sandbox, untrusted lets out only what a person accepts after asking about every
// untrusted command, on-request lets the model ask when it wants out; a child may run under
// its author's policy or a narrower one. An unknown or unreported author policy counts as
// never.
func ApprovalWithin(child, author string) bool {
	rank := map[string]int{ApprovalNever: 0, ApprovalUntrusted: 1, ApprovalOnRequest: 2}
	c, ok := rank[child]
	return ok && c <= rank[author]
}

// Kinds of approval requests.
const (
	ApprovalCommand    = "command"
	ApprovalFileChange = "fileChange"
	// ApprovalMCPToolCall: Codex asks whether a tool of an MCP server may run (an elicitation).
	ApprovalMCPToolCall = "mcpToolCall"
)

// Decisions Codex takes. Decline and cancel are always possible (cancel interrupts the turn).
const (
	DecisionAccept           = "accept"
	DecisionAcceptForSession = "acceptForSession"
	DecisionDecline          = "decline"
	DecisionCancel           = "cancel"
)

// States of an approval.
const (
	ApprovalPending  = "pending"
	ApprovalAnswered = "answered"
	ApprovalExpired  = "expired"  // nobody answered in time: the default decision was sent
	ApprovalResolved = "resolved" // the turn ended first
	// ApprovalLost: the App Server that asked went away (the runtime stopped or another took
	// the home over) before a decision reached it; Outcome tells how its turn really ended.
	ApprovalLost = "lost"
)

// DefaultApprovalDecision is what an approval nobody answers gets.
const DefaultApprovalDecision = DecisionDecline

// Approval is one request: ids, what is asked (a command and its cwd, or a file change's
// reason; never file contents), the decisions offered, and who answered what.
type Approval struct {
	ID        string         `json:"id" doc:"the approval's id, as approve takes it"`
	ThreadID  string         `json:"threadId" doc:"the asking thread"`
	TurnID    string         `json:"turnId,omitempty" doc:"its turn"`
	ItemID    string         `json:"itemId,omitempty" doc:"the command or file change item"`
	Kind      string         `json:"kind" doc:"command, fileChange or mcpToolCall"`
	Command   string         `json:"command,omitempty" doc:"the command Codex would run"`
	Cwd       string         `json:"cwd,omitempty" doc:"where it would run"`
	Reason    string         `json:"reason,omitempty" doc:"why the model asks, when it said; for an MCP tool call, Codex's question"`
	Server    string         `json:"server,omitempty" doc:"for an MCP tool call: the MCP server whose tool would run"`
	Decisions []string       `json:"decisions" doc:"the decisions offered"`
	State     string         `json:"state" doc:"pending, answered, expired, resolved or lost"`
	Decision  string         `json:"decision,omitempty" doc:"what was decided"`
	DecidedBy string         `json:"decidedBy,omitempty" doc:"who decided: a client, the operator, or timeout"`
	CreatedAt time.Time      `json:"createdAt" doc:"when Codex asked"`
	ExpiresAt time.Time      `json:"expiresAt" doc:"when the default decision (decline) is sent if nobody answers"`
	DecidedAt *time.Time     `json:"decidedAt,omitempty" doc:"when it was decided (or lost)"`
	Lease     *ApprovalLease `json:"lease,omitempty" doc:"who may answer now"`
	// Outcome is set on a lost approval once its turn's end is known.
	Outcome string `json:"outcome,omitempty" doc:"for a lost approval: how its turn really ended (completed, failed or interrupted)"`
	Reasked bool   `json:"reasked,omitempty" doc:"true when Codex asked it again after it was lost"`
}

// ApprovalLease gives one holder the right to answer until Expires; Fence grows with every
// transfer, so a decision made under an older lease is recognised and refused.
type ApprovalLease struct {
	Holder  string    `json:"holder" doc:"the client (or operator) that may answer"`
	Fence   int64     `json:"fence" doc:"the lease's fencing token: a decision must carry it"`
	Expires time.Time `json:"expires" doc:"when the lease ends"`
}
