package ui

import (
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// A native delegation's events come while, or just after, the catalog was read, before
// Codex lists the session: the fleet looks again a moment later, so the new thread shows
// without r and without waiting for the 30 s tick.
func TestFleetLooksAgainForANewThreadItCouldNotSeeYet(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	var listed atomic.Bool
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		s := []api.CatalogSession{{ID: idA, Title: "fix the flaky tests", Status: model.ThreadIdle, UpdatedAt: epoch}}
		if listed.Load() {
			s = append(s, api.CatalogSession{ID: idB, Title: "the new delegation", Status: model.ThreadIdle, UpdatedAt: epoch})
		}
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: s}}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.c.reconcile = ReconcileEvery // the timers are on, as in the app; none armed yet
	reads := func() int { return len(callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)) }
	start := reads()

	// The delegation starts a second after the fleet was read: too soon to read it again.
	a.clk.advance(time.Second)
	_, cmd := a.Update(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idB, Status: model.ThreadActive}))
	if reads() != start {
		t.Fatal("an event read the catalog again a second after the last read")
	}
	listed.Store(true) // Codex lists the session now
	a.clk.advance(reconcileOnFocus)
	a.run(cmd)
	if reads() != start+1 {
		t.Fatalf("%d catalog reads after the new thread's event, want 1", reads()-start)
	}
	mustContain(t, a.fleet.View(), "the new delegation")
}
