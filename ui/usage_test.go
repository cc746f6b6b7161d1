package ui

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A thread.usage event updates the fleet's usage column, the context fill of a running turn
// and the lineage pane's tree total at once, without reading any thread again.
func TestUsageFollowsEventsInTheFleetAndTheLineageWithoutReading(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadLineage, fakeLineage)
	a := newTestApp(t, rt, 200, 34)
	mustContain(t, a.fleet.View(), "(shell)", "—") // an external thread without a usage line
	a.press(a.km.List.Bottom)
	a.press(a.km.Global.Lineage)
	mustNotContain(t, a.lineage.View(), "tree ")
	lists := len(callsTo[api.ThreadListParams](rt, api.MethodThreadList))
	lineages := len(callsTo[api.ThreadLineageParams](rt, api.MethodThreadLineage))

	fill := 0.25
	a.send(EventMsg(api.Event{Type: api.EventThreadUsage, Thread: idShell, Status: model.ThreadActive,
		Usage: &model.Usage{TokenCounts: model.TokenCounts{Input: 1200, Output: 300, Total: 1500}, Turns: 1, ContextWindow: 6000, ContextTokens: 1500, ContextFill: &fill}}))
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idShell, Status: model.ThreadActive}))
	mustContain(t, a.fleet.View(), "1.5k 25%")
	a.send(EventMsg(api.Event{Type: api.EventThreadUsage, Thread: idChild,
		Usage: &model.Usage{TokenCounts: model.TokenCounts{Input: 500, Output: 100, Total: 600}, Turns: 1,
			EstimatedCost: &model.CostEstimate{Estimate: true, Amount: 0.0012}}}))
	v := a.lineage.View()
	mustContain(t, v, "1.5k tok", "600 tok", "tree 2.1k tok ≈0.0012 est.")

	if n := len(callsTo[api.ThreadListParams](rt, api.MethodThreadList)); n != lists {
		t.Fatalf("usage events read thread.list (%d -> %d calls)", lists, n)
	}
	if n := len(callsTo[api.ThreadLineageParams](rt, api.MethodThreadLineage)); n != lineages {
		t.Fatalf("usage events read thread.lineage (%d -> %d calls)", lineages, n)
	}
}
