package ui

import (
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
)

func TestRefreshSaysWhenAndClearsTheOldError(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 120, 35)
	a.send(statusMsg{level: levelError, text: "send to 019a0000…a1: THREAD_BUSY: the thread is running"})
	mustContain(t, a.view(), "THREAD_BUSY")
	before := len(callsTo[struct{}](rt, api.MethodCatalogHosts))
	a.clk.advance(2*time.Minute + 31*time.Second)
	a.press(a.km.Global.Refresh)
	v := a.view()
	mustContain(t, v, "refreshed 12:02:31")
	mustNotContain(t, v, "THREAD_BUSY")
	if after := len(callsTo[struct{}](rt, api.MethodCatalogHosts)); after <= before {
		t.Fatalf("catalog.hosts read %d times before r, %d after", before, after)
	}
}
