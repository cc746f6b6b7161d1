package cli

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func TestPrintLineageMarksMarkerCreatedThreads(t *testing.T) {
	t.Parallel()
	res := api.ThreadLineageResult{Focus: "a", Root: "a", Nodes: []api.LineageNode{
		{Thread: model.ThreadInfo{ID: "a", Harness: "shell", Status: model.ThreadIdle, LastTurn: &model.TurnSummary{Status: model.TurnCompleted}}, Children: []string{"b", "c"}},
		{Thread: model.ThreadInfo{ID: "b", Harness: "shell", Status: model.ThreadNotLoaded, LastTurn: &model.TurnSummary{Status: model.TurnFailed}}, Parent: "a"},
		{Thread: model.ThreadInfo{ID: "c", Harness: "shell", Status: model.ThreadActive}, Parent: "a", Marker: &api.LineageMarker{Generation: 2}},
	}}
	var b strings.Builder
	printLineage(&b, res)
	// The public words, never the runtime's raw idle, notLoaded or active.
	want := "a  shell  completed  ◀\n├─ b  shell  failed\n└─ c  shell  running  ◆ marker gen 2\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// A tree cut by the climb says so, not "cut at N threads" (no thread bound was met), and its
// total is of the threads shown, with those that recorded no usage counted.
func TestPrintLineageSaysWhichBoundCutTheTree(t *testing.T) {
	t.Parallel()
	u := &model.Usage{TokenCounts: model.TokenCounts{Input: 2, Output: 1, Total: 3}, Turns: 1}
	res := api.ThreadLineageResult{Focus: "b", Root: "a", Truncated: true, Usage: u, Nodes: []api.LineageNode{
		{Thread: model.ThreadInfo{ID: "a", Harness: "shell", Status: model.ThreadIdle, Origin: &model.OriginView{Kind: model.OriginThread, ParentThread: "above"}},
			Children: []string{"b"}},
		{Thread: model.ThreadInfo{ID: "b", Harness: "shell", Status: model.ThreadIdle}, Parent: "a", Usage: u},
	}}
	var b strings.Builder
	printLineage(&b, res)
	out := b.String()
	if strings.Contains(out, "cut at") || !strings.Contains(out, "(cut: the root is more than 64 delegations up; drawn from a)") {
		t.Fatalf("a climb cut reads:\n%s", out)
	}
	if !strings.Contains(out, "tree usage of the threads shown: 3 tok") || !strings.Contains(out, "; 1 of 2 threads have no usage recorded") {
		t.Fatalf("the total of a cut tree reads:\n%s", out)
	}
	res.Nodes[0].Thread.Origin = nil // the root is the real root: the thread bound cut it
	b.Reset()
	printLineage(&b, res)
	if out := b.String(); !strings.Contains(out, "(cut at 2 threads: the rest of the tree is not shown)") || strings.Contains(out, "delegations up") {
		t.Fatalf("a descent cut reads:\n%s", out)
	}
}
