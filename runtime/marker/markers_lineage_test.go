package marker_test

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S002-09 — thread.lineage marks the threads task-create blocks created with
// their generation. Every thread here runs the author harness, each in its own worktree of
// one repository whose committed blocks.md it prints: each creates the next generation,
// until the generation guard refuses the fourth.
func TestS002_09_LineageMarksMarkerCreatedThreadsWithTheirGeneration(t *testing.T) {
	t.Parallel()
	m := newMarkerEnv(t, nil)
	commitBlocks(t, m.cwd, fence("task-create", `{"prompt":"next generation"}`))
	author := m.start("author", "first generation", m.cwd)
	var lin api.ThreadLineageResult
	// A created thread is visible a moment before its marker record is written: wait for both.
	hosttest.Eventually(t, "three marked generations", func() bool {
		lin = hosttest.Call[api.ThreadLineageResult](t, m.c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: author})
		return len(lin.Nodes) == 4 && lin.Nodes[3].Marker != nil
	})
	if lin.Root != author || lin.Nodes[0].Marker != nil {
		t.Fatalf("root %s marked %+v", lin.Root, lin.Nodes[0].Marker)
	}
	parent := author
	for gen := 1; gen <= 3; gen++ {
		n := lin.Nodes[gen]
		if n.Parent != parent || n.Marker == nil || n.Marker.Generation != gen || n.Marker.Turn == "" {
			t.Fatalf("generation %d: node %s parent %s (want %s) marker %+v", gen, n.Thread.ID, n.Parent, parent, n.Marker)
		}
		parent = n.Thread.ID
	}
	if r := m.report(parent); !strings.Contains(r, "skipped (generation_limit)") {
		t.Fatalf("the third generation's report:\n%s", r)
	}
}
