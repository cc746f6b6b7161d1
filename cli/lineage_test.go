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
