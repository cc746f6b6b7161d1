package lineage

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func TestMarkCreatedMarksTheRecordedNodes(t *testing.T) {
	res := api.ThreadLineageResult{Nodes: []api.LineageNode{
		{Thread: model.ThreadInfo{ID: "root"}},
		{Thread: model.ThreadInfo{ID: "made"}},
		{Thread: model.ThreadInfo{ID: "gone"}, Error: model.Errorf(model.CodeThreadNotFound, "", "gone")},
	}}
	// An unreadable node keeps its mark: the record is the runtime's, not the harness's.
	records := map[model.ThreadID]model.MarkerChild{"made": {Generation: 2, Turn: "t1"}, "gone": {Generation: 1}}
	MarkCreated(&res, func(id model.ThreadID) (model.MarkerChild, bool) { c, ok := records[id]; return c, ok })
	if res.Nodes[0].Marker != nil {
		t.Fatalf("root marked: %+v", res.Nodes[0].Marker)
	}
	if m := res.Nodes[2].Marker; m == nil || m.Generation != 1 {
		t.Fatalf("gone: %+v", m)
	}
	if m := res.Nodes[1].Marker; m == nil || m.Generation != 2 || m.Turn != "t1" {
		t.Fatalf("made: %+v", m)
	}
}
