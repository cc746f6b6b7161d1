package catalog

import (
	"context"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
)

// thread/list reports no total: a page of sessions carries the host's total only once the
// title index holds the whole host, so the fleet can say "2 of 3" rather than "2+".
func TestSessionsPageGivesTheTotalOnceTheIndexIsExact(t *testing.T) {
	t.Parallel()
	e := newRealEnv(t)
	c := e.client(e.home())
	for _, name := range []string{"alpha", "bravo", "charlie"} {
		e.thread(c, name, "work")
	}
	cat, err := New([]HostSpec{localSpec(c)}, Options{IndexDir: t.TempDir(), ReadAheadPages: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer cat.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	page := func() api.CatalogHostSessions {
		res, err := cat.List(ctx, api.CatalogSessionsParams{Host: LocalHostID, Limit: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Hosts[0]
	}
	if p := page(); p.Total != 0 || p.NextCursor == "" {
		t.Fatalf("before a full read: total %d, next %q; want no total and more pages", p.Total, p.NextCursor)
	}
	cat.Warm()
	if !cat.waitExact(ctx, cat.byID[LocalHostID]) {
		t.Fatal("the title index did not become exact")
	}
	if p := page(); p.Total != 3 || len(p.Sessions) != 2 {
		t.Fatalf("after a full read: total %d with %d rows, want 3 with 2", p.Total, len(p.Sessions))
	}
	res, err := cat.List(ctx, api.CatalogSessionsParams{Host: LocalHostID, Limit: 2, Search: "alpha"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hosts[0].Total != 0 {
		t.Fatalf("a search page gave total %d: the total is of every session", res.Hosts[0].Total)
	}
}
