package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func node(id, parent string, kids ...string) *LineageNode {
	return &LineageNode{Thread: model.ThreadInfo{ID: id, Harness: "shell", Status: model.ThreadIdle}, Parent: parent, Children: kids}
}

func TestFlattenLineageDrawsRootToLeavesAndHidesFoldedChildren(t *testing.T) {
	t.Parallel()
	nodes := map[string]*LineageNode{
		"r":  node("r", "", "a", "b"),
		"a":  node("a", "r", "a1", "a2"),
		"a1": node("a1", "a"),
		"a2": node("a2", "a"),
		"b":  node("b", "r", "b1"),
		"b1": node("b1", "b"),
	}
	draw := func(vis []visNode) string {
		var b strings.Builder
		for _, v := range vis {
			b.WriteString(v.prefix + v.id + "\n")
		}
		return b.String()
	}
	want := "r\n├─ a\n│  ├─ a1\n│  └─ a2\n└─ b\n   └─ b1\n"
	if got := draw(flattenLineage(nodes, "r", nil)); got != want {
		t.Fatalf("tree:\n%s\nwant:\n%s", got, want)
	}
	if got := draw(flattenLineage(nodes, "r", map[string]bool{"a": true})); got != "r\n├─ a\n└─ b\n   └─ b1\n" {
		t.Fatalf("folded tree:\n%s", got)
	}
	// A loop in the records is drawn once, not forever.
	nodes["b1"].Children = []string{"r"}
	if got := flattenLineage(nodes, "r", nil); len(got) != 6 {
		t.Fatalf("loop drawn %d nodes", len(got))
	}
}

func TestLineagePaneFoldsAndJumpsToANodesTranscript(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 200, 34)
	a.press(a.km.List.Bottom) // the shell thread, root of the fixture's tree
	a.press(a.km.Global.Lineage)
	l := a.lineage
	v := l.View()
	mustContain(t, v, "shell 11111111…55", "└─ ", "codex 11111111…66 child task", "1 ref", "refs: https://example.com/issue/1")
	golden.RequireEqual(t, []byte(v))

	a.press(a.km.Lineage.Collapse)
	mustNotContain(t, l.View(), "child task")
	a.press(a.km.Lineage.Expand)
	mustContain(t, l.View(), "child task")

	a.press(a.km.List.Down)
	a.press(a.km.List.Select)
	if a.focus != paneTranscript || !a.transcript.has || a.transcript.ref.ID != idChild {
		t.Fatalf("jump: focus %v, transcript %+v", a.focus, a.transcript.ref)
	}
	// The child is native: its transcript comes from the catalog of the default host.
	reqs := callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript)
	if last := reqs[len(reqs)-1]; last.Thread != idChild || last.Host != "gateway:local" {
		t.Fatalf("transcript request %+v", last)
	}
	// The tree stays: the child was already in it.
	mustContain(t, l.View(), "shell 11111111…55")
}

func TestLineageGrowsWhenADelegationStarts(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	n := len(callsTo[map[string]string](rt, api.MethodThreadLineage))
	a.send(threadChangedMsg{id: "99999999-2222-4333-8444-666666666666", created: true, parent: idShell})
	if m := len(callsTo[map[string]string](rt, api.MethodThreadLineage)); m != n+1 {
		t.Fatalf("a delegation from a thread in the tree did not reload it (%d -> %d)", n, m)
	}
}

// Scenario: S002-09 — the lineage pane marks the threads task-create blocks created, with
// their generation; a delegated thread carries no mark.
func TestLineagePaneMarksMarkerCreatedThreadsWithTheirGeneration(t *testing.T) {
	t.Parallel()
	const gen1, gen2 = "11111111-2222-4333-8444-777777777777", "11111111-2222-4333-8444-888888888888"
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadLineage, func(json.RawMessage) (any, error) {
		info := func(id, title string) model.ThreadInfo {
			return model.ThreadInfo{ID: id, Harness: "shell", Status: model.ThreadIdle, Title: title}
		}
		return api.ThreadLineageResult{Focus: idShell, Root: idShell, Nodes: []api.LineageNode{
			{Thread: info(idShell, "author"), Children: []string{idChild, gen1}},
			{Thread: info(idChild, "delegated"), Parent: idShell, Children: []string{}},
			{Thread: info(gen1, "first"), Parent: idShell, Children: []string{gen2}, Marker: &api.LineageMarker{Generation: 1, Turn: "t-1"}},
			{Thread: info(gen2, "second"), Parent: gen1, Children: []string{}, Marker: &api.LineageMarker{Generation: 2, Turn: "t-2"}},
		}}, nil
	})
	a := newTestApp(t, rt, 200, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.Global.Lineage)
	lines := strings.Split(a.lineage.View(), "\n")
	row := func(title string) string {
		for _, l := range lines {
			if strings.Contains(l, title) {
				return l
			}
		}
		t.Fatalf("no row %q in:\n%s", title, strings.Join(lines, "\n"))
		return ""
	}
	mustNotContain(t, row("author"), "marker")
	mustNotContain(t, row("delegated"), "marker")
	mustContain(t, row("first"), "◆ marker gen 1")
	mustContain(t, row("second"), "◆ marker gen 2")
	a.press(a.km.List.Bottom)
	mustContain(t, a.lineage.footer(), "created by a marker block, generation 2")
}

// A thread alone in its tree is "1 thread", not "1 threads".
func TestLineageTitleCountsOneThreadInTheSingular(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Select) // idA: a thread with no family
	if got := a.lineage.Title(); got != "Lineage · 1 thread" {
		t.Fatalf("title %q", got)
	}
}
