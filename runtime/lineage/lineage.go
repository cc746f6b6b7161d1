// Package lineage walks the delegation tree around a thread: up through its origins to the
// root, then down through every delegated child, breadth first, within fixed bounds.
package lineage

import (
	"context"
	"slices"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Source is what the walk reads: one thread, and one page of a thread's delegated children
// (oldest first), as thread.read and thread.list --parent answer them.
type Source interface {
	Read(ctx context.Context, id string) (model.ThreadInfo, error)
	Children(ctx context.Context, parent, cursor string) (threads []model.ThreadInfo, next string, err error)
}

// Walk returns the tree around thread with at most maxNodes threads (0 or more than
// api.LineageMaxNodes means api.LineageMaxNodes).
func Walk(ctx context.Context, src Source, thread string, maxNodes int) (api.ThreadLineageResult, error) {
	if maxNodes <= 0 || maxNodes > api.LineageMaxNodes {
		maxNodes = api.LineageMaxNodes
	}
	first, err := src.Read(ctx, thread)
	if err != nil {
		return api.ThreadLineageResult{}, err
	}
	w := &walk{src: src, nodes: map[string]*api.LineageNode{first.ID: {Thread: first}}, inOrder: map[string]bool{}}
	res := api.ThreadLineageResult{Focus: first.ID}
	root, climbCut, err := w.climb(ctx, first.ID)
	if err != nil {
		return api.ThreadLineageResult{}, err
	}
	res.Root = root
	descentCut, err := w.descend(ctx, root, maxNodes)
	if err != nil {
		return api.ThreadLineageResult{}, err
	}
	res.Truncated = climbCut || descentCut
	w.keepClimbed(res.Focus)
	res.Nodes = make([]api.LineageNode, 0, len(w.order))
	for _, id := range w.order {
		n := w.nodes[id]
		if n.Children == nil {
			n.Children = []string{}
		}
		res.Nodes = append(res.Nodes, *n)
	}
	return res, nil
}

type walk struct {
	src     Source
	nodes   map[string]*api.LineageNode
	order   []string
	inOrder map[string]bool
}

// climb follows each thread's origin to its parent, up to the depth bound or a parent that
// cannot be read, and returns the root and whether the bound cut it.
func (w *walk) climb(ctx context.Context, from string) (string, bool, error) {
	cur := w.nodes[from]
	for range api.LineageMaxDepth {
		o := cur.Thread.Origin
		if o == nil || o.Kind != model.OriginThread || o.ParentThread == "" {
			return cur.Thread.ID, false, nil
		}
		if _, seen := w.nodes[o.ParentThread]; seen {
			return cur.Thread.ID, false, nil // records that loop stop here
		}
		cur.Parent = o.ParentThread
		parent := &api.LineageNode{Thread: model.ThreadInfo{ID: o.ParentThread, Refs: []string{}}}
		info, err := w.src.Read(ctx, o.ParentThread)
		if err != nil {
			if ctx.Err() != nil {
				return "", false, ctx.Err()
			}
			parent.Error = model.AsError(err)
		} else {
			parent.Thread = info
		}
		w.nodes[o.ParentThread] = parent
		cur = parent
		if parent.Error != nil {
			return cur.Thread.ID, false, nil
		}
	}
	o := cur.Thread.Origin
	return cur.Thread.ID, o != nil && o.Kind == model.OriginThread && o.ParentThread != "", nil
}

// descend lists children breadth first, so a cut keeps the levels nearest the root.
func (w *walk) descend(ctx context.Context, root string, maxNodes int) (bool, error) {
	w.order, w.inOrder[root] = []string{root}, true
	queue := []string{root}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		cursor := ""
		for {
			page, next, err := w.src.Children(ctx, id, cursor)
			if err != nil {
				return false, err
			}
			for _, t := range page {
				if w.inOrder[t.ID] {
					continue
				}
				if len(w.order) >= maxNodes {
					return true, nil
				}
				n := w.nodes[t.ID]
				if n == nil {
					n = &api.LineageNode{Thread: t}
					w.nodes[t.ID] = n
				}
				n.Parent = id
				w.nodes[id].Children = append(w.nodes[id].Children, t.ID)
				w.inOrder[t.ID] = true
				w.order = append(w.order, t.ID)
				queue = append(queue, t.ID)
			}
			if next == "" {
				break
			}
			cursor = next
		}
	}
	return false, nil
}

// keepClimbed adds the threads met on the climb that the descent did not reach (records of
// an origin without a listed delegation, or a cut), so the focus is always in the tree.
func (w *walk) keepClimbed(focus string) {
	var missing []string
	for id := focus; id != "" && !w.inOrder[id]; id = w.nodes[id].Parent {
		missing = append(missing, id)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		id := missing[i]
		if parent := w.nodes[id].Parent; parent != "" && !slices.Contains(w.nodes[parent].Children, id) {
			w.nodes[parent].Children = append(w.nodes[parent].Children, id)
		}
		w.inOrder[id] = true
		w.order = append(w.order, id)
	}
}
