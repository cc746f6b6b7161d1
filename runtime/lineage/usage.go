package lineage

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// SumUsage sets each node's own usage (its thread's) and its subtree's, over the nodes the
// walk kept, and the tree's total on the result. Nodes come parents first, so children are
// summed before their parent is reached from the end.
func SumUsage(res *api.ThreadLineageResult) {
	index := make(map[string]int, len(res.Nodes))
	for i := range res.Nodes {
		n := &res.Nodes[i]
		n.Usage, n.TreeUsage = n.Thread.Usage, model.SumUsage(nil, n.Thread.Usage)
		index[n.Thread.ID] = i
	}
	for i := len(res.Nodes) - 1; i >= 0; i-- {
		n := &res.Nodes[i]
		if p, ok := index[n.Parent]; ok && p < i {
			res.Nodes[p].TreeUsage = model.SumUsage(res.Nodes[p].TreeUsage, n.TreeUsage)
		}
	}
	res.Usage = nil
	if r, ok := index[res.Root]; ok {
		res.Usage = res.Nodes[r].TreeUsage
	}
}
