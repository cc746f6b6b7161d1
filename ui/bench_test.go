package ui

import (
	"encoding/json"
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// bigApp is an app with 10,000 catalog rows and a 2,000-node lineage, at 160×50.
func bigApp(b *testing.B) *testApp {
	rt := newFake()
	fleetFixture(rt)
	rows := make([]api.CatalogSession, 10000)
	for i := range rows {
		rows[i] = api.CatalogSession{ID: fmt.Sprintf("019a0000-0000-7000-8000-%012d", i), Title: fmt.Sprintf("session number %d", i),
			Cwd: "/src/project", GitBranch: "main", Status: model.ThreadIdle, UpdatedAt: epoch}
	}
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: rows}}}, nil
	})
	lin := Lineage{Root: "n0", Focus: "n0"}
	for i := range 2000 {
		n := LineageNode{Thread: model.ThreadInfo{ID: fmt.Sprintf("n%d", i), Harness: "shell", Status: model.ThreadIdle}}
		if i > 0 {
			n.Parent = fmt.Sprintf("n%d", (i-1)/3)
		}
		for c := 3*i + 1; c <= 3*i+3 && c < 2000; c++ {
			n.Children = append(n.Children, fmt.Sprintf("n%d", c))
		}
		lin.Nodes = append(lin.Nodes, n)
	}
	a := newTestApp(b, rt, 160, 50)
	a.lineage.ref, a.lineage.has = threadRef{ID: "n0"}, true
	a.lineage.set(lin)
	a.lineage.ref = threadRef{ID: "n0"}
	return a
}

func BenchmarkViewWith10kRowsAnd2kLineageNodes(b *testing.B) {
	a := bigApp(b)
	b.ResetTimer()
	for range b.N {
		_ = a.View()
	}
}

// BenchmarkCursorMoveToFrame is a key press through Update and the frame after it.
func BenchmarkCursorMoveToFrame(b *testing.B) {
	a := bigApp(b)
	down, up := keyOf(a.km.List.Down), keyOf(a.km.List.Up)
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%2 == 1 {
			k = up
		}
		_, _ = a.Update(k)
		_ = a.View()
	}
}

var _ tea.Model = (*App)(nil)

// BenchmarkFleetLoad10kRows is the fleet taking in a host's answer of 10,000 sessions (the
// work the event loop does when a reload lands).
func BenchmarkFleetLoad10kRows(b *testing.B) {
	a := bigApp(b)
	rows := make([]api.CatalogSession, 10000)
	for i := range rows {
		rows[i] = api.CatalogSession{ID: fmt.Sprintf("019a0000-0000-7000-8000-%012d", i), Title: fmt.Sprintf("session number %d", i), Status: model.ThreadIdle, UpdatedAt: epoch}
	}
	hs := api.CatalogHostSessions{Host: "gateway:local", Sessions: rows}
	g := a.fleet.group(hs.Host)
	b.ResetTimer()
	for b.Loop() {
		a.fleet.firstPage(g, hs)
		a.fleet.relayout()
	}
}

// BenchmarkFleetRelayout10kRows is what a status event costs the event loop with 10,000 rows.
func BenchmarkFleetRelayout10kRows(b *testing.B) {
	a := bigApp(b)
	for b.Loop() {
		a.fleet.relayout()
	}
}
