package api

import (
	"time"

	"github.com/codexhost/codexhost/model"
)

// Fleet catalog: native Codex sessions per host. Operator methods; rows carry metadata only.
const (
	MethodCatalogHosts      = "catalog.hosts"
	MethodCatalogSessions   = "catalog.sessions"
	MethodCatalogTranscript = "catalog.transcript"
	MethodCatalogArchive    = "catalog.archive"
)

// Catalog host capabilities.
const (
	CatalogCapList       = "list"
	CatalogCapTranscript = "transcript"
	CatalogCapArchive    = "archive"
	CatalogCapContinue   = "continue"
)

// Catalog host kinds.
const (
	CatalogHostLocal = "local" // a Codex home of this machine
	CatalogHostNode  = "node"  // a paired node: another codexhost runtime
)

// Catalog host health states.
const (
	CatalogHealthOK      = "ok"
	CatalogHealthError   = "error"
	CatalogHealthUnknown = "unknown" // nothing tried yet
)

// CatalogHost is one source of sessions: a Codex home reached through its App Server.
type CatalogHost struct {
	ID           string        `json:"id"`
	Kind         string        `json:"kind"` // CatalogHostLocal or CatalogHostNode
	Default      bool          `json:"default,omitempty"`
	Capabilities []string      `json:"capabilities"`
	Health       CatalogHealth `json:"health"`
}

// CatalogHealth is the outcome of the host's last attempt.
type CatalogHealth struct {
	State     string     `json:"state"`
	Code      string     `json:"code,omitempty"`
	Message   string     `json:"message,omitempty"`
	CheckedAt *time.Time `json:"checkedAt,omitempty"`
	RetryAt   *time.Time `json:"retryAt,omitempty"` // while backing off after a failure
}

// CatalogHostsResult lists the hosts, the default local one first.
type CatalogHostsResult struct {
	Hosts []CatalogHost `json:"hosts"`
}

// CatalogSessionsParams selects one page per host. Cursor needs Host.
type CatalogSessionsParams struct {
	Search string `json:"search,omitempty"`
	Host   string `json:"host,omitempty"`
	Limit  int    `json:"limit,omitempty"` // per host; 0 = default
	Cursor string `json:"cursor,omitempty"`
	// Progress asks for an EventCatalogHost event per host as soon as that host settled, so a
	// slow or dead host holds no other back; the answer is still the aggregate of them all.
	Progress bool `json:"progress,omitempty"`
}

// CatalogSession is the projection of one unarchived native thread.
type CatalogSession struct {
	ID                string    `json:"id"`
	Title             string    `json:"title,omitempty"`
	Cwd               string    `json:"cwd,omitempty"`
	Status            string    `json:"status"`
	WaitingOnApproval bool      `json:"waitingOnApproval"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
	Source            string    `json:"source"`
	ModelProvider     string    `json:"modelProvider,omitempty"`
	CodexVersion      string    `json:"codexVersion,omitempty"`
	GitBranch         string    `json:"gitBranch,omitempty"`
	SessionLink
	// Usage is the recorded token usage of the codexhost thread that drives the session
	// (CodexhostThread); absent for other sessions and while that thread reported none.
	Usage *model.Usage `json:"usage,omitempty"`
}

// CatalogHostSessions is one host's page. A failed host has Error and no sessions.
type CatalogHostSessions struct {
	Host       string           `json:"host"`
	Sessions   []CatalogSession `json:"sessions"`
	NextCursor string           `json:"nextCursor,omitempty"`
	Error      *model.Error     `json:"error,omitempty"`
	// Revalidating marks a search answered from the host's title index before it was
	// confirmed by a full read of the host: archived threads are already left out, a thread
	// renamed elsewhere meanwhile may show under its old title. A call that asked for
	// progress gets the page again once the index is exact.
	Revalidating bool `json:"revalidating,omitempty"`
	// Total counts every unarchived session of the host, given on a page without a search
	// when the host's title index holds the whole host (a full read confirmed it). The App
	// Server's thread/list reports no total, so 0 means not known.
	Total int `json:"total,omitempty"`
}

// CatalogSessionsResult groups the pages by host, the default local host first.
type CatalogSessionsResult struct {
	Hosts []CatalogHostSessions `json:"hosts"`
}

// CatalogTranscriptParams reads one page of a thread's turns; no cursor is the newest page.
type CatalogTranscriptParams struct {
	Thread string `json:"thread"`
	Host   string `json:"host,omitempty"`
	Cursor string `json:"cursor,omitempty"`
}

// CatalogTurn is one turn with its user and assistant messages, oldest first.
type CatalogTurn struct {
	ID          string     `json:"id"`
	Status      string     `json:"status"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	// Error is why a failed turn failed, as Codex says it.
	Error    string          `json:"error,omitempty"`
	Messages []model.Message `json:"messages"`
	// Approvals are the approvals this runtime held for the turn, oldest first.
	Approvals []model.Approval `json:"approvals,omitempty"`
}

// CatalogTranscriptResult is a page of turns, oldest first; the cursors lead to the older and
// the newer neighbouring pages.
type CatalogTranscriptResult struct {
	Host        string        `json:"host"`
	Thread      string        `json:"thread"`
	Turns       []CatalogTurn `json:"turns"`
	OlderCursor string        `json:"olderCursor,omitempty"`
	NewerCursor string        `json:"newerCursor,omitempty"`
	SessionLink
}

// CatalogArchiveParams archives a thread of a local host.
type CatalogArchiveParams struct {
	Thread               string `json:"thread"`
	Host                 string `json:"host,omitempty"`
	ConfirmNoOtherRunner bool   `json:"confirmNoOtherRunner"`
}

// CatalogArchiveResult reports an archive Codex accepted.
type CatalogArchiveResult struct {
	Host     string `json:"host"`
	Thread   string `json:"thread"`
	Archived bool   `json:"archived"`
	// MarkerWorktree is what became of the worktree and branch a marker block made for the
	// thread, when it had them.
	MarkerWorktree *model.MarkerCleanup `json:"markerWorktree,omitempty"`
}

// Continue: a supervised branch of a native session. The supervised thread is a codexhost
// thread: read, wait for, send to and cancel it with the thread methods.
const MethodCatalogContinue = "catalog.continue"

// CatalogContinueParams names the source thread; Host defaults to gateway:local.
type CatalogContinueParams struct {
	Thread string `json:"thread"`
	Host   string `json:"host,omitempty"`
}

// CatalogContinueResult is the supervised thread of the source: the same one on every call.
// State is "pending" until its first turn creates the canonical Codex thread, then "bound".
type CatalogContinueResult struct {
	Host            string           `json:"host"`
	Source          string           `json:"source"`
	Thread          model.ThreadInfo `json:"thread"`
	State           string           `json:"state"`
	CanonicalThread string           `json:"canonicalThread,omitempty"`
	// Binding is "codex-cli-node-session" for a paired node's thread (bound to that exact
	// thread; each send resumes it on the node), empty for a branch of a local source.
	Binding  string                `json:"binding,omitempty"`
	Existing bool                  `json:"existing"`
	History  *CatalogBranchHistory `json:"history,omitempty"`
}

// CatalogBranchHistory describes the bounded visible history a branch carries (sizes only).
type CatalogBranchHistory struct {
	Messages int `json:"messages"`
	Bytes    int `json:"bytes"`
	// Truncated counts messages cut to the per-message limit; OlderOmitted says older
	// messages were left out to stay within the limits.
	Truncated    int  `json:"truncated"`
	OlderOmitted bool `json:"olderOmitted"`
}

// MethodThreadLineage reads the delegation tree around a thread in one call.
const MethodThreadLineage = "thread.lineage"

// Lineage bounds: the climb to the root and the threads of one answer.
const (
	LineageMaxDepth = 64
	LineageMaxNodes = 2000
)

// ThreadLineageParams asks for the tree around Thread; MaxNodes 0 means LineageMaxNodes.
type ThreadLineageParams struct {
	Thread   string `json:"thread"`
	MaxNodes int    `json:"maxNodes,omitempty"`
}

// LineageNode is one thread of a delegation tree. A thread that cannot be read (a parent
// whose harness is gone, say) keeps its place with its id and the error.
type LineageNode struct {
	Thread   model.ThreadInfo `json:"thread"`
	Parent   string           `json:"parent,omitempty"`
	Children []string         `json:"children"`
	Error    *model.Error     `json:"error,omitempty"`
	Marker   *LineageMarker   `json:"marker,omitempty"` // set when a marker block created it
	// Usage is the thread's own token usage and TreeUsage that of its subtree as walked (it
	// and every descendant in Nodes); null when none of them reported any.
	Usage     *model.Usage `json:"usage"`
	TreeUsage *model.Usage `json:"treeUsage"`
}

// ThreadLineageResult is the tree around Focus: Nodes root first, every parent before its
// children. Truncated says the walk stopped at a bound (depth or node count).
type ThreadLineageResult struct {
	Focus     string        `json:"focus"`
	Root      string        `json:"root"`
	Nodes     []LineageNode `json:"nodes"`
	Truncated bool          `json:"truncated"`
	// Usage is the whole tree's (the root's TreeUsage); partial when Truncated.
	Usage *model.Usage `json:"usage"`
}

// MethodThreadVisible asks whether the caller may learn of a thread it was not given (its
// events, its row in a list): a runtime that does not hold the store asks the one that does.
const MethodThreadVisible = "thread.visible"

// ThreadVisibleParams names the thread.
type ThreadVisibleParams struct {
	Thread string `json:"thread"`
}

// ThreadVisibleResult answers for the calling client.
type ThreadVisibleResult struct {
	Visible bool `json:"visible"`
}
