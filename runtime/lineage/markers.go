package lineage

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// MarkCreated marks the nodes a task-create block created with their marker generation.
// created looks up a thread's marker-creation record; false when a marker block did not
// create it (or the record cannot be read: the node is then shown unmarked).
func MarkCreated(res *api.ThreadLineageResult, created func(model.ThreadID) (model.MarkerChild, bool)) {
	for i := range res.Nodes {
		n := &res.Nodes[i]
		if c, ok := created(model.ThreadID(n.Thread.ID)); ok {
			n.Marker = &api.LineageMarker{Generation: c.Generation, Turn: c.Turn}
		}
	}
}
