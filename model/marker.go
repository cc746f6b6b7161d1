package model

import "time"

// MarkerTool is the canonical name of a marker tool (task-create, task-poll, wait-threads,
// task-cancel, task-retry).
type MarkerTool string

// MarkerCreated describes a thread made by a task-create block.
type MarkerCreated struct {
	ID      string `json:"id"`
	Harness string `json:"harness"`
	// Worktree is the created thread's own git worktree and Branch its branch; both empty
	// when the author's cwd is not in a git work tree and the thread shares it (Cwd).
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	// Repo is the common git dir of the worktree's repository.
	Repo string `json:"repo,omitempty"`
	// Shared says why the thread shares its author's cwd ("" outside git, where it always does).
	Shared string `json:"shared,omitempty"`
}

// MarkerView is one snapshot of a poll or wait target. Result is content: never stored.
type MarkerView struct {
	ID         string `json:"id"`
	Status     string `json:"status,omitempty"`
	TurnID     string `json:"turnId,omitempty"`
	TurnStatus string `json:"turnStatus,omitempty"`
	Result     string `json:"-"`
	Refusal    string `json:"refusal,omitempty"`
	Detail     string `json:"detail,omitempty"`
	TimedOut   bool   `json:"timedOut,omitempty"`
}

// MarkerOutcome is what became of one block. Name (a task-create block's name) is for the
// report only and never stored.
type MarkerOutcome struct {
	Seq      int            `json:"seq"`
	Info     string         `json:"info"`
	Tool     MarkerTool     `json:"tool"`
	Decision string         `json:"decision"`
	Code     string         `json:"code,omitempty"`
	Detail   string         `json:"detail,omitempty"`
	Name     string         `json:"-"`
	Created  *MarkerCreated `json:"created,omitempty"`
	TurnID   string         `json:"turnId,omitempty"` // the turn a cancel stopped or a retry started
	Targets  []string       `json:"targets,omitempty"`
	Views    []MarkerView   `json:"views,omitempty"`
}

// MarkerAudit is the durable record of one block: who wrote it in which turn, what it named
// and what was decided. Never prompt text or output.
type MarkerAudit struct {
	V         int        `json:"v"`
	ID        string     `json:"id"`
	Author    ThreadID   `json:"author"`
	Turn      string     `json:"turn"`
	Seq       int        `json:"seq"`
	Tool      MarkerTool `json:"tool"`
	Info      string     `json:"info"`
	Targets   []string   `json:"targets,omitempty"`
	Created   ThreadID   `json:"created,omitempty"`
	Decision  string     `json:"decision"`
	Code      string     `json:"code,omitempty"`
	ParsedAt  time.Time  `json:"parsedAt"`
	DecidedAt time.Time  `json:"decidedAt"`
}

// MarkerChild links a marker-created thread to its author, for the generation and
// direct-children guards and for lineage.
type MarkerChild struct {
	V          int       `json:"v"`
	Child      ThreadID  `json:"child"`
	Parent     ThreadID  `json:"parent"`
	Turn       string    `json:"turn"`
	Generation int       `json:"generation"`
	CreatedAt  time.Time `json:"createdAt"`
	// Repo, Worktree and Branch are the thread's own worktree while it exists: the
	// repository's common git dir, the worktree's folder and its branch. Worktree is cleared
	// when the worktree is removed, Branch when the branch is deleted.
	Repo     string `json:"repo,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
}

// MarkerCleanup is what became of a created thread's worktree and branch when its thread
// was archived or pruned.
type MarkerCleanup struct {
	Worktree        string `json:"worktree,omitempty"`
	WorktreeRemoved bool   `json:"worktreeRemoved,omitempty"`
	Branch          string `json:"branch,omitempty"`
	BranchDeleted   bool   `json:"branchDeleted,omitempty"`
	// OwnCommits counts the branch's commits no other branch, tag or remote reaches: a
	// branch with any is kept, since deleting it would lose them.
	OwnCommits int `json:"ownCommits,omitempty"`
	// Kept says why something was left in place; "" when everything went.
	Kept string `json:"kept,omitempty"`
}

// Marker run states.
const (
	// MarkerPlanned: the turn's blocks are to run; creation and control are not finished.
	// Recorded before any block runs, so that a crash leaves the plan, never nothing.
	MarkerPlanned   = "planned"
	MarkerRunning   = "running"   // polls or waits still to finish
	MarkerReported  = "reported"  // the report is queued for delivery (exactly once)
	MarkerAbandoned = "abandoned" // the author was cancelled: nothing more runs, no report
	MarkerHeld      = "held"      // nothing of the author's last runs was accepted: no report, which ends a loop
	MarkerNotRun    = "notRun"    // the author may not run blocks (a goal thread or a handoff task): no report
)

// MarkerTurn is a turn in flight: written when the turn starts, marked completed the moment
// its completion is heard, and settled once its blocks are planned or it ended otherwise, so
// that a turn which completed just before a crash is found and planned at the next start.
type MarkerTurn struct {
	V         int       `json:"v"`
	Author    ThreadID  `json:"author"`
	Turn      string    `json:"turn"`
	Completed bool      `json:"completed,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MarkerPending is a poll or wait not finished yet. Its deadline is absolute, so a restart
// resumes it where it was.
type MarkerPending struct {
	Seq      int           `json:"seq"`
	Tool     MarkerTool    `json:"tool"`
	Info     string        `json:"info"`
	Targets  []string      `json:"targets"`
	Interval time.Duration `json:"interval"`
	Deadline time.Time     `json:"deadline"`
	Chars    int           `json:"chars"`
	// Once is a wait_seconds read: one read at the deadline, whatever happens before it.
	Once bool `json:"once,omitempty"`
}

// MarkerRun is the durable state of one author turn's blocks, from their plan to the report:
// the outcomes so far and the reads still waiting.
type MarkerRun struct {
	V        int             `json:"v"`
	ID       string          `json:"id"`
	Author   ThreadID        `json:"author"`
	Turn     string          `json:"turn"`
	State    string          `json:"state"`
	Outcomes []MarkerOutcome `json:"outcomes"`
	Pending  []MarkerPending `json:"pending,omitempty"`
	// Started are the creation and control blocks (by seq) that began while the run was
	// planned; one without an outcome was cut short by a crash and is never run again.
	Started   []int     `json:"started,omitempty"`
	Dropped   int       `json:"dropped,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}
