package marker

import (
	"fmt"
	"testing"

	"github.com/codexhost/codexhost/model"
)

func gateSnapshot() Snapshot {
	author := Facts{ID: "author", Project: "/p", Principal: "operator", Parent: "root"}
	th := map[string]Facts{
		"root":       {ID: "root", Project: "/p", Principal: "operator"},
		"author":     author,
		"child":      {ID: "child", Project: "/p", Principal: "operator", Parent: "author", Running: true, MarkerCreated: true},
		"grandchild": {ID: "grandchild", Project: "/p", Principal: "operator", Parent: "child", LastTurnStatus: model.TurnFailed, MarkerCreated: true},
		"sibling":    {ID: "sibling", Project: "/p", Principal: "operator", Running: true},
		"stranger":   {ID: "stranger", Project: "/p", Principal: "client:bot", Running: true, LastTurnStatus: model.TurnInProgress},
		"strangerF":  {ID: "strangerF", Project: "/p", Principal: "client:bot", LastTurnStatus: model.TurnFailed},
		"elsewhere":  {ID: "elsewhere", Project: "/q", Principal: "operator", Parent: "author", Running: true},
		"goal":       {ID: "goal", Project: "/p", Principal: "operator", Parent: "author", Running: true, Goal: true},
		"done":       {ID: "done", Project: "/p", Principal: "operator", Parent: "author", LastTurnStatus: model.TurnCompleted},
		"cut":        {ID: "cut", Project: "/p", Principal: "operator", Parent: "author", LastTurnStatus: model.TurnInterrupted},
		"fresh":      {ID: "fresh", Project: "/p", Principal: "operator", Parent: "author"},
	}
	return Snapshot{Author: author, Threads: th}
}

// Scenario: S002-08
func TestS002_08_ControlGates(t *testing.T) {
	t.Parallel()
	allowed := Permission{Allowed: true}
	denied := Permission{}
	failed := Permission{LookupFailed: true}
	cases := []struct {
		tool   Tool
		target string
		perm   Permission
		want   string
	}{
		{ToolCancel, "missing", allowed, RefuseNotFound},
		{ToolCancel, "author", allowed, RefuseSelf},
		{ToolCancel, "elsewhere", allowed, RefuseOtherProject},
		{ToolCancel, "goal", allowed, RefuseGoal},
		{ToolRetry, "goal", allowed, RefuseGoal},
		{ToolCancel, "done", allowed, RefuseNotRunning},
		{ToolCancel, "fresh", allowed, RefuseNotRunning},
		{ToolRetry, "done", allowed, RefuseNotRetryable},
		{ToolRetry, "child", allowed, RefuseNotRetryable},
		{ToolRetry, "fresh", allowed, RefuseNotRetryable},
		{ToolCancel, "child", allowed, ""},
		{ToolRetry, "grandchild", allowed, ""},
		{ToolRetry, "cut", allowed, ""},
		{ToolCancel, "sibling", allowed, ""}, // same principal, not in the chain
		{ToolCancel, "stranger", allowed, RefuseUnrelated},
		{ToolRetry, "strangerF", allowed, RefuseUnrelated},
		{ToolCancel, "child", denied, RefusePermission},
		{ToolRetry, "grandchild", denied, RefusePermission},
		{ToolCancel, "child", failed, ""},                        // in the chain: allowed
		{ToolCancel, "sibling", failed, RefusePermissionUnknown}, // principal only: closed
		{ToolPoll, "child", allowed, RefuseUnrelated},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%+v", c.tool, c.target, c.perm), func(t *testing.T) {
			got := CheckControl(c.tool, gateSnapshot(), c.target, c.perm)
			if got.Code != c.want {
				t.Fatalf("got %q (%s), want %q", got.Code, got.Detail, c.want)
			}
		})
	}
}

// Scenario: S002-04
func TestS002_04_ReadTargetGate(t *testing.T) {
	t.Parallel()
	s := gateSnapshot()
	for target, want := range map[string]string{"missing": RefuseNotFound, "author": RefuseSelf, "elsewhere": RefuseOtherProject, "goal": "", "stranger": "", "done": ""} {
		if got := CheckTarget(s, target); got.Code != want {
			t.Fatalf("%s: got %q want %q", target, got.Code, want)
		}
	}
}

// Scenario: S002-08
func TestS002_08_ChainIsBoundedAt32Steps(t *testing.T) {
	t.Parallel()
	s := Snapshot{Author: Facts{ID: "a", Project: "/p", Principal: "operator"}, Threads: map[string]Facts{}}
	parent := "a"
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("t%02d", i)
		s.Threads[id] = Facts{ID: id, Project: "/p", Principal: "client:other", Parent: parent, Running: true}
		parent = id
	}
	if !InChain(s, "t31") {
		t.Fatalf("32 steps up must reach the author")
	}
	if InChain(s, "t32") {
		t.Fatalf("33 steps up must not count")
	}
	if got := CheckControl(ToolCancel, s, "t32", Permission{Allowed: true}); got.Code != RefuseUnrelated {
		t.Fatalf("beyond the chain bound: %+v", got)
	}
	// A parent cycle ends at the bound instead of looping.
	s.Threads["x"] = Facts{ID: "x", Parent: "y"}
	s.Threads["y"] = Facts{ID: "y", Parent: "x"}
	if InChain(s, "x") {
		t.Fatalf("cycle")
	}
}

// Scenario: S002-09
func TestS002_09_GenerationAndDirectChildren(t *testing.T) {
	t.Parallel()
	s := gateSnapshot()
	if g := Generation(s, "author"); g != 0 {
		t.Fatalf("ordinary author generation %d", g)
	}
	if g := Generation(s, "grandchild"); g != 2 {
		t.Fatalf("grandchild generation %d", g)
	}
	cases := []struct {
		gen, children int
		want          string
	}{
		{0, 0, ""}, {2, 0, ""}, {3, 0, RefuseGeneration}, {0, 19, ""}, {0, 20, RefuseDirectChildren},
	}
	for _, c := range cases {
		if got := CheckCreate(c.gen, c.children); got.Code != c.want {
			t.Fatalf("gen %d children %d: %q want %q", c.gen, c.children, got.Code, c.want)
		}
	}
}

// Scenario: S002-09 — a delegation between marker generations neither counts nor resets.
func TestS002_09_GenerationCountsThroughDelegations(t *testing.T) {
	t.Parallel()
	s := gateSnapshot()
	s.Threads["delegated"] = Facts{ID: "delegated", Project: "/p", Parent: "grandchild"}
	s.Threads["made"] = Facts{ID: "made", Project: "/p", Parent: "delegated", MarkerCreated: true}
	if g := Generation(s, "delegated"); g != 2 {
		t.Fatalf("delegated under generation 2: %d", g)
	}
	if g := Generation(s, "made"); g != 3 {
		t.Fatalf("created by the delegated thread: %d", g)
	}
}
