package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func TestFleetGroupsHostsLocalFirstWithHealthAndErrors(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 180, 34)
	v := a.fleet.View()
	mustContain(t, v, "gateway:local  ✓ ok · 3", "node:lab  ✗ error · 0", "! APP_SERVER_UNAVAILABLE: codex not found",
		"codexhost threads  ✓ ok · 1", "◆ waiting", "◌ stored", "○ idle", "5m", "3h", "2d", "main")
	golden.RequireEqual(t, []byte(v))
}

func TestFleetSearchFiltersTitlesThenSearchesTheCatalog(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.Fleet.Search)
	if !a.fleet.Capturing() {
		t.Fatal("search does not take the keyboard")
	}
	a.typeText("release")
	v := a.fleet.View()
	mustContain(t, v, "write the release notes")
	mustNotContain(t, v, "fix the flaky tests")
	// q is text while searching, not quit.
	a.typeText("q")
	a.send(keyOf(a.km.Input.Submit))
	calls := callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if last := calls[len(calls)-1]; last.Search != "releaseq" {
		t.Fatalf("catalog searched with %+v", last)
	}
	mustContain(t, a.fleet.View(), "search: releaseq")
	a.press(a.km.Fleet.ClearSearch)
	calls = callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if last := calls[len(calls)-1]; last.Search != "" {
		t.Fatalf("clearing the search still searched: %+v", last)
	}
	mustContain(t, a.fleet.View(), "fix the flaky tests")
}

func TestFleetScrollingPastTheEndLoadsTheHostsNextPage(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	page := func(from, n int) []api.CatalogSession {
		var out []api.CatalogSession
		for i := from; i < from+n; i++ {
			out = append(out, api.CatalogSession{ID: fmt.Sprintf("019a0000-0000-7000-8000-%012d", i), Title: fmt.Sprintf("session %d", i), Status: model.ThreadIdle, UpdatedAt: epoch})
		}
		return out
	}
	rt.on(api.MethodCatalogSessions, func(raw json.RawMessage) (any, error) {
		var p api.CatalogSessionsParams
		_ = json.Unmarshal(raw, &p)
		if p.Cursor == "" {
			return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: page(0, 3), NextCursor: "c1"}}}, nil
		}
		if p.Host != "gateway:local" || p.Cursor != "c1" {
			return nil, fmt.Errorf("unexpected page request %+v", p)
		}
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: page(3, 2)}}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	for range 3 {
		a.press(a.km.List.Down)
	}
	pages := callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if len(pages) != 2 || pages[1].Cursor != "c1" || pages[1].Host != "gateway:local" {
		t.Fatalf("page requests: %+v", pages)
	}
	ref, ok := a.fleet.Selected()
	if !ok || ref.Title != "session 3" {
		t.Fatalf("cursor after the page loaded: %+v %v", ref, ok)
	}
	mustContain(t, a.fleet.View(), "session 4")
	mustNotContain(t, a.fleet.View(), "more")
}

func TestFleetCursorStaysOnItsThreadAcrossReloads(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Down)
	before, _ := a.fleet.Selected()
	a.press(a.km.Global.Refresh)
	after, _ := a.fleet.Selected()
	if before.ID != idB || after.ID != before.ID {
		t.Fatalf("cursor moved from %s to %s", before.ID, after.ID)
	}
}

func TestFleetStatusFollowsEventsWithoutReloading(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	n := len(callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions))
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idA, Status: model.ThreadActive}))
	mustContain(t, a.fleet.View(), a.c.spinner()+" running")
	if m := len(callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)); m != n {
		t.Fatalf("a status event reloaded the catalog (%d -> %d calls)", n, m)
	}
	// An unknown thread is likely a new delegation: the runtime's threads are read again.
	threads := len(callsTo[api.ThreadListParams](rt, api.MethodThreadList))
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idChild, Status: model.ThreadActive}))
	if m := len(callsTo[api.ThreadListParams](rt, api.MethodThreadList)); m != threads+1 {
		t.Fatalf("thread.list calls %d -> %d", threads, m)
	}
}

func TestFleetDropsRepliesOfAnEarlierReload(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	old := a.fleet.seq
	a.fleet.reload() // a newer generation is now in flight
	a.send(sessionsLoadedMsg{seq: old, res: api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{
		{Host: "gateway:local", Sessions: []api.CatalogSession{{ID: idC, Title: "stale row", UpdatedAt: epoch.Add(-time.Hour)}}},
	}}})
	mustNotContain(t, a.fleet.View(), "stale row")
}

// Scenario: issue 16 bug 8. While a search filters the fleet, the counts are of the rows it
// lets through: in the title and in every group's header.
func TestFleetCountsAreOfTheRowsTheSearchShows(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	if got := a.fleet.Title(); got != "Fleet · 4" {
		t.Fatalf("title %q", got)
	}
	a.press(a.km.Fleet.Search)
	a.typeText("release")
	mustContain(t, a.fleet.Title(), "Fleet · 1 · search release")
	v := a.fleet.View()
	mustContain(t, v, "gateway:local  ✓ ok · 1", "codexhost threads  ✓ ok · 0")
	a.send(keyOf(a.km.Input.Submit))
	if got := a.fleet.Title(); got != "Fleet · 1 · search release" {
		t.Fatalf("title after the catalog search %q", got)
	}
}

// Scenario: issue 24 item 6. At 200 columns a long title is not cut beside blank columns: the
// cwd and branch columns are as wide as what they show.
func TestFleetWideRowsGiveTheTitleTheRoom(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	long := strings.Repeat("long title words ", 30)
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: []api.CatalogSession{
			{ID: idA, Title: long, Cwd: "/src/app", Status: model.ThreadIdle, GitBranch: "main", UpdatedAt: epoch},
		}}}}, nil
	})
	a := newTestApp(t, rt, 200, 50)
	var row string
	for _, l := range strings.Split(a.fleet.View(), "\n") {
		if strings.Contains(l, "long title") {
			row = l
		}
	}
	mustContain(t, row, " /src/app main ")
	if blank := strings.Repeat(" ", 6); strings.Contains(strings.TrimRight(row, " "), "…"+blank) {
		t.Fatalf("the title is cut beside blank columns: %q", row)
	}
}
