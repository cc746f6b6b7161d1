package marker

import (
	"fmt"

	"github.com/codexhost/codexhost/model"
)

// Guards of creation and control.
const (
	// MaxGeneration bounds chains of marker-created threads; only marker creations count.
	MaxGeneration = 3
	// MaxDirectChildren bounds the marker-created children of one author.
	MaxDirectChildren = 20
	// MaxChainSteps bounds the parent walk of the chain gate.
	MaxChainSteps = 32
)

// Refusal codes of the gates: stable, kept in the audit.
const (
	RefuseNotFound          = "not_found"
	RefuseOtherProject      = "other_project"
	RefuseSelf              = "self"
	RefuseGoal              = "goal_thread"
	RefuseNotRunning        = "not_running"
	RefuseNotRetryable      = "not_retryable"
	RefuseUnrelated         = "unrelated"
	RefusePermission        = "permission_denied"
	RefusePermissionUnknown = "permission_unknown"
	RefuseGeneration        = "generation_limit"
	RefuseDirectChildren    = "children_limit"
	RefuseQuota             = "quota"
	RefuseLeaf              = "handoff_leaf"
)

// Facts is what the gates know of one thread.
type Facts struct {
	ID        string
	Harness   string
	Cwd       string
	Project   string // the repository (its common git dir) holding its cwd, else its cwd
	Principal string // who it acts for: "operator", "client:NAME"
	Parent    string // its delegation or marker-creation parent, "" when none
	Goal      bool
	Running   bool
	// LastTurnStatus is the status of its latest turn (model.Turn*), "" before the first.
	LastTurnStatus string
	// MarkerCreated says a marker block of its parent created it.
	MarkerCreated bool
	// Leaf says it is a handoff task's thread: its capability is the handoff's, which a
	// created thread or a control block would widen, so every block of it is refused.
	Leaf bool
}

// Snapshot is the state the gates decide on: the author and every thread it may name, with
// their ancestors (for the chain walk).
type Snapshot struct {
	Author  Facts
	Threads map[string]Facts
}

// Permission is the outcome of the principal's permission lookup for one tool.
type Permission struct {
	Allowed bool
	// LookupFailed says the lookup itself failed: only targets in the author's chain pass.
	LookupFailed bool
}

// Refusal says why a gate refused; the zero value passes.
type Refusal struct {
	Code   string
	Detail string
}

// OK reports a pass.
func (r Refusal) OK() bool { return r.Code == "" }

func refuse(code, format string, args ...any) Refusal {
	return Refusal{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// CheckTarget is the first gate, shared by every tool that names a thread: it exists, it is
// in the author's project, and it is not the author.
func CheckTarget(s Snapshot, target string) Refusal {
	if target == s.Author.ID {
		return refuse(RefuseSelf, "a thread cannot name itself")
	}
	t, ok := s.Threads[target]
	if !ok {
		return refuse(RefuseNotFound, "no thread %s", target)
	}
	if t.Project != s.Author.Project {
		return refuse(RefuseOtherProject, "the thread belongs to another project")
	}
	return Refusal{}
}

// InChain reports whether following target's parents (at most MaxChainSteps) reaches the author.
func InChain(s Snapshot, target string) bool {
	id := target
	for step := 0; step < MaxChainSteps; step++ {
		t, ok := s.Threads[id]
		if !ok || t.Parent == "" {
			return false
		}
		if t.Parent == s.Author.ID {
			return true
		}
		id = t.Parent
	}
	return false
}

// CheckControl applies the five gates of task-cancel and task-retry, all required.
func CheckControl(tool Tool, s Snapshot, target string, perm Permission) Refusal {
	if r := CheckTarget(s, target); !r.OK() {
		return r
	}
	t := s.Threads[target]
	if t.Goal {
		return refuse(RefuseGoal, "goal threads are not cancelled or retried by marker blocks")
	}
	switch tool {
	case ToolCancel:
		if !t.Running {
			return refuse(RefuseNotRunning, "the thread has no running turn")
		}
	case ToolRetry:
		if t.Running || (t.LastTurnStatus != model.TurnFailed && t.LastTurnStatus != model.TurnInterrupted) {
			return refuse(RefuseNotRetryable, "only a thread whose last turn failed or was interrupted is retried (it is %s)", stateWord(t))
		}
	default:
		return refuse(RefuseUnrelated, "%s is not a control tool", tool)
	}
	chain := InChain(s, target)
	if !chain && t.Principal != s.Author.Principal {
		return refuse(RefuseUnrelated, "the thread is neither in your chain of created threads nor of your principal")
	}
	switch {
	case perm.LookupFailed && !chain:
		return refuse(RefusePermissionUnknown, "the permission lookup failed, so only threads in your chain are allowed")
	case perm.LookupFailed:
		return Refusal{}
	case !perm.Allowed:
		return refuse(RefusePermission, "your principal %s may not %s threads", s.Author.Principal, verb(tool))
	}
	return Refusal{}
}

// Generation is the number of marker creations along id's whole chain of origins, up to its
// root (0 when neither it nor an ancestor was marker-created); a delegation in between resets
// nothing and does not count.
func Generation(s Snapshot, id string) int {
	gen := 0
	for step := 0; step < MaxChainSteps; step++ {
		t, ok := s.Threads[id]
		if !ok {
			if id == s.Author.ID {
				t, ok = s.Author, true
			} else {
				break
			}
		}
		if t.MarkerCreated {
			gen++
		}
		if t.Parent == "" {
			break
		}
		id = t.Parent
	}
	return gen
}

// CheckCreate applies the creation guards: a new child's generation is the author's plus one,
// at most MaxGeneration, and an author has at most MaxDirectChildren marker-created children.
func CheckCreate(authorGeneration, directChildren int) Refusal {
	if authorGeneration+1 > MaxGeneration {
		return refuse(RefuseGeneration, "marker-created threads go at most %d generations deep", MaxGeneration)
	}
	if directChildren >= MaxDirectChildren {
		return refuse(RefuseDirectChildren, "a thread creates at most %d threads with marker blocks", MaxDirectChildren)
	}
	return Refusal{}
}

func stateWord(t Facts) string {
	switch {
	case t.Running:
		return "running"
	case t.LastTurnStatus == "":
		return "without a turn"
	}
	return t.LastTurnStatus
}

func verb(tool Tool) string {
	if tool == ToolRetry {
		return "retry"
	}
	return "cancel"
}
