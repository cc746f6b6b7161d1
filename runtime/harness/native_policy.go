package harness

import (
	"encoding/json"

	"github.com/codexhost/codexhost/model"
)

// ThreadPolicy is the sandbox and approval policy a native thread runs with, as the App
// Server reported them. What a thread creates runs with its policy or a narrower one, so the
// runtime keeps it for as long as it runs, unloads included.
type ThreadPolicy struct {
	Sandbox  string // read-only | workspace-write | danger-full-access
	Approval string // Codex's approval policy; "" when not reported
	Network  bool   // its commands reach the network (a workspace-write thread's setting)
}

// Sandboxed reports whether the policy confines the thread's commands at all.
func (p ThreadPolicy) Sandboxed() bool { return p.Sandbox != SandboxFull }

// Codex's sandbox modes, narrowest first.
const (
	SandboxReadOnly = "read-only"
	SandboxWrite    = "workspace-write"
	SandboxFull     = "danger-full-access"
)

// Narrower returns the narrower of two sandbox modes ("" is no constraint).
func Narrower(a, b string) string {
	rank := map[string]int{SandboxReadOnly: 0, SandboxWrite: 1, SandboxFull: 2, "": 3}
	ra, oka := rank[a]
	rb, okb := rank[b]
	switch {
	case !oka || !okb:
		return SandboxReadOnly // an unknown mode is taken at its narrowest
	case ra <= rb:
		return a
	}
	return b
}

// policyFrom reads the sandbox and approval of a thread/start or thread/resume answer. A
// sandbox type it does not know is recorded as read-only: the safe reading.
func policyFrom(sandbox, approval json.RawMessage) ThreadPolicy {
	var p ThreadPolicy
	switch sandboxType(sandbox) {
	case "readOnly":
		p.Sandbox = SandboxReadOnly
	case "workspaceWrite":
		p.Sandbox = SandboxWrite
	case "dangerFullAccess":
		p.Sandbox = SandboxFull
	default:
		p.Sandbox = SandboxReadOnly
	}
	var a string
	if json.Unmarshal(approval, &a) == nil {
		p.Approval = a
	}
	return p
}

func (n *Native) setPolicy(id model.ThreadID, p ThreadPolicy) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.policies == nil {
		n.policies = map[model.ThreadID]ThreadPolicy{}
	}
	n.policies[id] = p
}

// PolicyOf is the policy thread id was started or last resumed with by this runtime; false
// when this runtime has not loaded it (a caller then takes the narrowest).
func (n *Native) PolicyOf(id model.ThreadID) (ThreadPolicy, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	p, ok := n.policies[id]
	return p, ok
}
