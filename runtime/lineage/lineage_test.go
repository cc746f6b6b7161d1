package lineage

import (
	"context"
	"fmt"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// treeSource is an in-memory delegation tree: parent of each thread, children in order.
type treeSource struct {
	parent   map[string]string
	children map[string][]string
	broken   map[string]bool // threads whose read fails
	pageSize int
}

func (s *treeSource) Read(_ context.Context, id string) (model.ThreadInfo, error) {
	if s.broken[id] {
		return model.ThreadInfo{}, model.Errorf(model.CodeThreadNotFound, "", "no thread %s", id)
	}
	info := model.ThreadInfo{ID: id}
	if p := s.parent[id]; p != "" {
		info.Origin = &model.OriginView{Kind: model.OriginThread, ParentThread: p}
	}
	return info, nil
}

func (s *treeSource) Children(_ context.Context, parent, cursor string) ([]model.ThreadInfo, string, error) {
	kids := s.children[parent]
	start := 0
	if cursor != "" {
		fmt.Sscan(cursor, &start)
	}
	end := min(start+s.pageSize, len(kids))
	var out []model.ThreadInfo
	for _, k := range kids[start:end] {
		info, _ := s.Read(context.Background(), k)
		out = append(out, info)
	}
	next := ""
	if end < len(kids) {
		next = fmt.Sprint(end)
	}
	return out, next, nil
}

func newTree() *treeSource {
	return &treeSource{parent: map[string]string{}, children: map[string][]string{}, broken: map[string]bool{}, pageSize: 2}
}

func (s *treeSource) add(parent, child string) {
	s.parent[child] = parent
	s.children[parent] = append(s.children[parent], child)
}

func TestWalkFromALeafReachesTheRootAndEveryBranchParentsFirst(t *testing.T) {
	s := newTree()
	s.add("r", "a")
	s.add("r", "b")
	s.add("r", "c") // a second page of r's children
	s.add("a", "a1")
	res, err := Walk(context.Background(), s, "a1", 0)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, n := range res.Nodes {
		order = append(order, n.Thread.ID)
	}
	if res.Root != "r" || res.Focus != "a1" || res.Truncated || fmt.Sprint(order) != "[r a b c a1]" {
		t.Fatalf("walk %+v order %v", res, order)
	}
	if fmt.Sprint(res.Nodes[0].Children) != "[a b c]" || res.Nodes[4].Parent != "a" {
		t.Fatalf("links %+v", res.Nodes)
	}
}

func TestWalkIsCutAtMaxNodesBreadthFirstAndKeepsTheFocus(t *testing.T) {
	s := newTree()
	for i := range 5 {
		s.add("r", fmt.Sprint("k", i))
	}
	s.add("k4", "deep")
	res, err := Walk(context.Background(), s, "deep", 3)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated {
		t.Fatal("a cut walk is not marked truncated")
	}
	last := res.Nodes[len(res.Nodes)-1]
	if last.Thread.ID != "deep" || res.Nodes[0].Thread.ID != "r" {
		t.Fatalf("the focus and its climb are not kept: %+v", res.Nodes)
	}
}

func TestWalkClimbIsBoundedAndAnUnreadableParentKeepsItsPlace(t *testing.T) {
	s := newTree()
	prev := "t0"
	for i := 1; i <= api.LineageMaxDepth+5; i++ {
		id := fmt.Sprint("t", i)
		s.add(id, prev) // t(i) is the parent of t(i-1)
		prev = id
	}
	res, err := Walk(context.Background(), s, "t0", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Root != fmt.Sprint("t", api.LineageMaxDepth) {
		t.Fatalf("deep climb: root %s truncated %v", res.Root, res.Truncated)
	}

	s = newTree()
	s.add("gone", "kid")
	s.broken["gone"] = true
	res, err = Walk(context.Background(), s, "kid", 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Root != "gone" || res.Nodes[0].Error == nil || res.Nodes[0].Error.Code != model.CodeThreadNotFound {
		t.Fatalf("unreadable parent: %+v", res)
	}
}

func TestWalkStopsOnRecordsThatLoop(t *testing.T) {
	s := newTree()
	s.add("a", "b")
	s.add("b", "a")
	res, err := Walk(context.Background(), s, "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nodes) != 2 {
		t.Fatalf("loop: %+v", res.Nodes)
	}
}
