package cli

import (
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func TestPrintLineageMarksMarkerCreatedThreads(t *testing.T) {
	res := api.ThreadLineageResult{Focus: "a", Root: "a", Nodes: []api.LineageNode{
		{Thread: model.ThreadInfo{ID: "a", Harness: "shell", Status: model.ThreadIdle}, Children: []string{"b", "c"}},
		{Thread: model.ThreadInfo{ID: "b", Harness: "shell", Status: model.ThreadIdle}, Parent: "a"},
		{Thread: model.ThreadInfo{ID: "c", Harness: "shell", Status: model.ThreadActive}, Parent: "a", Marker: &api.LineageMarker{Generation: 2}},
	}}
	var b strings.Builder
	printLineage(&b, res)
	want := "a  shell  idle  ◀\n├─ b  shell  idle\n└─ c  shell  active  ◆ marker gen 2\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
