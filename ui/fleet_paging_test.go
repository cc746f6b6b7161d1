package ui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// pagedFleet is a fleet of one host with n sessions, served fleetPageSize a page.
func pagedFleet(rt *fakeRuntime, n int) []string { return pagedFleetTotal(rt, n, 0) }

// pagedFleetTotal is pagedFleet whose pages give the host's total, as a runtime whose title
// index holds the whole host does (0: not known).
func pagedFleetTotal(rt *fakeRuntime, n, total int) []string {
	fleetFixture(rt)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("019a0000-0000-7000-8000-%012d", i)
	}
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
		return api.CatalogHostsResult{Hosts: []api.CatalogHost{{ID: "gateway:local", Kind: "local", Default: true, Health: api.CatalogHealth{State: api.CatalogHealthOK}}}}, nil
	})
	rt.on(api.MethodCatalogSessions, func(raw json.RawMessage) (any, error) {
		var p api.CatalogSessionsParams
		_ = json.Unmarshal(raw, &p)
		from, _ := strconv.Atoi(strings.TrimPrefix(p.Cursor, "at-"))
		to := min(from+p.Limit, n)
		page := api.CatalogHostSessions{Host: "gateway:local", Sessions: []api.CatalogSession{}, Total: total}
		for i := from; i < to; i++ {
			page.Sessions = append(page.Sessions, api.CatalogSession{ID: ids[i], Title: fmt.Sprintf("session %03d", i),
				Status: model.ThreadNotLoaded, UpdatedAt: epoch.Add(-time.Duration(i) * time.Minute)})
		}
		if to < n {
			page.NextCursor = "at-" + strconv.Itoa(to)
		}
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{page}}, nil
	})
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) { return api.ThreadListResult{Threads: []model.ThreadInfo{}}, nil })
	return ids
}

func selectedID(t *testing.T, ta *testApp) string {
	t.Helper()
	ref, ok := ta.fleet.Selected()
	if !ok {
		t.Fatalf("nothing selected; fleet:\n%s", ta.fleet.View())
	}
	return ref.ID
}

// The 30 s re-read keeps the pages loaded, the selection and the scroll: before, it put the
// fleet back to its first page and the cursor to the top with nothing pressed.
func TestFleetReconcileKeepsPagesSelectionAndScroll(t *testing.T) {
	t.Parallel()
	rt := newFake()
	ids := pagedFleet(rt, 180)
	ta := newTestApp(t, rt, 120, 35)
	for range 120 {
		ta.press(ta.km.List.Down)
	}
	if got := selectedID(t, ta); got != ids[120] {
		t.Fatalf("selected %s, want %s", got, ids[120])
	}
	offset := ta.fleet.offset
	ta.clk.advance(ReconcileEvery + time.Second)
	ta.send(reconcileMsg{})
	if got := selectedID(t, ta); got != ids[120] {
		t.Fatalf("after the re-read selected %s, want %s", got, ids[120])
	}
	if ta.fleet.offset != offset {
		t.Fatalf("scroll offset %d after the re-read, want %d", ta.fleet.offset, offset)
	}
	mustContain(t, ta.fleet.Title(), "Fleet · 150+")
	mustContain(t, ta.view(), "session 120")
}

// The header counts what is known beyond the loaded rows: the host's total when the runtime
// gives it, "+" when more pages exist and nothing says how many, the plain count once all
// are loaded, and a filter's count of what it lets through.
func TestFleetHeaderCountsTheTotal(t *testing.T) {
	t.Parallel()
	rt := newFake()
	pagedFleetTotal(rt, 3001, 3001)
	ta := newTestApp(t, rt, 80, 24)
	if got := ta.fleet.Title(); got != "Fleet · 50 of 3,001" {
		t.Fatalf("title %q, want the host's total", got)
	}
	mustContain(t, ta.view(), "Fleet · 50 of 3,001")

	rt = newFake()
	pagedFleet(rt, 3001)
	ta = newTestApp(t, rt, 120, 35)
	if got := ta.fleet.Title(); got != "Fleet · 50+" {
		t.Fatalf("title %q with no total known", got)
	}

	rt = newFake()
	pagedFleetTotal(rt, 30, 30)
	ta = newTestApp(t, rt, 120, 35)
	if got := ta.fleet.Title(); got != "Fleet · 30" {
		t.Fatalf("title %q with every row loaded", got)
	}
}

// held is a test app whose commands wait until the test runs them, as pages in flight do.
type held struct {
	*testApp
	cmds []tea.Cmd
}

func (h *held) press(k tea.KeyMsg) {
	_, cmd := h.Update(k)
	h.cmds = append(h.cmds, cmd)
}

func (h *held) flush() {
	cmds := h.cmds
	h.cmds = nil
	for _, c := range cmds {
		h.run(c)
	}
}

// Keys that arrive while the next page loads are applied once it is there: 60 `j` from the
// top land on row 61, and 150 on row 151, across two page boundaries.
func TestFleetKeysDuringPageLoadAreKept(t *testing.T) {
	t.Parallel()
	for _, n := range []int{60, 150} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			rt := newFake()
			ids := pagedFleet(rt, 400)
			h := &held{testApp: newTestApp(t, rt, 120, 35)}
			down := keyOf(h.km.List.Down)
			for i := 0; i < n; i++ {
				h.press(down)
				if i%7 == 0 {
					h.flush() // some pages answer while keys still come
				}
			}
			for range 10 {
				h.flush()
			}
			if got := selectedID(t, h.testApp); got != ids[n] {
				t.Fatalf("after %d j selected %s, want %s (row %d)", n, got, ids[n], n+1)
			}
		})
	}
}

// Keys pressed while a page is in flight and no page has answered yet wait for it.
func TestFleetKeysWaitForTheSlowPage(t *testing.T) {
	t.Parallel()
	rt := newFake()
	ids := pagedFleet(rt, 400)
	h := &held{testApp: newTestApp(t, rt, 120, 35)}
	down, up := keyOf(h.km.List.Down), keyOf(h.km.List.Up)
	for range 60 {
		h.press(down)
	}
	h.press(up)
	h.press(up)
	for range 5 {
		h.flush()
	}
	if got := selectedID(t, h.testApp); got != ids[58] {
		t.Fatalf("selected %s, want %s", got, ids[58])
	}
}

// `G` loads page after page, says so in the header, and lands on the last session.
func TestFleetBottomLoadsToTheEnd(t *testing.T) {
	t.Parallel()
	rt := newFake()
	ids := pagedFleet(rt, 230)
	h := &held{testApp: newTestApp(t, rt, 120, 35)}
	h.press(keyOf(h.km.List.Bottom))
	mustContain(t, h.fleet.Title(), "loading to the end")
	for range 10 {
		h.flush()
	}
	if got := selectedID(t, h.testApp); got != ids[229] {
		t.Fatalf("G selected %s, want the last %s", got, ids[229])
	}
	title := h.fleet.Title()
	mustContain(t, title, "Fleet · 230")
	mustNotContain(t, title, "+", "loading")

	// Pressed again with every page here, it moves and says nothing of loading.
	h.press(keyOf(h.km.List.Top))
	h.press(keyOf(h.km.List.Bottom))
	h.flush()
	mustNotContain(t, h.fleet.Title(), "loading")
	if got := selectedID(t, h.testApp); got != ids[229] {
		t.Fatalf("G again selected %s", got)
	}
}

// Another key stops the walk to the end where it is.
func TestFleetBottomStopsOnAnotherKey(t *testing.T) {
	t.Parallel()
	rt := newFake()
	pagedFleet(rt, 400)
	h := &held{testApp: newTestApp(t, rt, 120, 35)}
	h.press(keyOf(h.km.List.Bottom))
	h.press(keyOf(h.km.List.Up))
	for range 10 {
		h.flush()
	}
	if h.fleet.toEnd {
		t.Fatal("still loading to the end after another key")
	}
	if got := len(h.fleet.groups[0].rows); got >= 400 {
		t.Fatalf("every page loaded (%d rows) though the walk was stopped", got)
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 50: "50", 999: "999", 3001: "3,001", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
