package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// search types a search line and applies it.
func (ta *testApp) search(s string) {
	ta.press(ta.km.Fleet.Search)
	for range 60 {
		ta.send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	ta.typeText(s)
	ta.send(keyOf(ta.km.Input.Submit))
}

// status:running, status:stored and status:error keep the rows in that state, counted
// against the rows the title search lets through; the catalog is searched with the title
// part only; a word that names no status says so and shows nothing.
func TestFleetStatusFilterKeepsRowsInThatStateAndCountsThem(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, a.fleet.Title(), "Fleet · 4")

	a.search("status:running")
	if got := a.fleet.Title(); got != "Fleet · 1 of 4 · running" {
		t.Fatalf("title %q", got)
	}
	v := a.fleet.View()
	mustContain(t, v, "write the release notes", "search: status:running")
	mustNotContain(t, v, "fix the flaky tests", "stored session")
	calls := callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if last := calls[len(calls)-1]; last.Search != "" {
		t.Fatalf("the status word reached the catalog search: %+v", last)
	}

	a.search("status:st")
	if got := a.fleet.Title(); got != "Fleet · 3 of 4 · stored" {
		t.Fatalf("title %q", got)
	}
	mustContain(t, a.fleet.View(), "fix the flaky tests", "stored session")
	mustNotContain(t, a.fleet.View(), "write the release notes")

	a.search("status:error")
	if got := a.fleet.Title(); got != "Fleet · 0 of 4 · error" {
		t.Fatalf("title %q", got)
	}
	mustContain(t, a.fleet.View(), "no session with status error")

	a.search("STATUS:bogus")
	if got := a.fleet.Title(); !strings.HasPrefix(got, "Fleet · 0 of 4 · no status bogus (running, stored, error)") {
		t.Fatalf("title %q", got)
	}

	a.search("release status:running")
	calls = callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)
	if last := calls[len(calls)-1]; last.Search != "release" {
		t.Fatalf("catalog searched with %+v", last)
	}
	if got := a.fleet.Title(); got != "Fleet · 1 of 1 · running · search release" {
		t.Fatalf("title %q", got)
	}

	a.press(a.km.Fleet.ClearSearch)
	if got := a.fleet.Title(); got != "Fleet · 4" {
		t.Fatalf("title after clearing %q", got)
	}
	// The search line says what it takes.
	a.press(a.km.Fleet.Search)
	mustContain(t, a.fleet.View(), "status:running|stored|error")
}

func TestParseFleetQuery(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]fleetQuery{
		"":                          {},
		"fix tests":                 {title: "fix tests"},
		"  fix   tests ":            {title: "fix   tests"},
		"status:running":            {status: filterRunning},
		"fix status:ERR  tests":     {title: "fix tests", status: filterError},
		"status:s":                  {status: filterStored},
		"status:":                   {bad: ""},
		"status:x status:run":       {status: filterRunning},
		"status:run status:nope":    {bad: "nope"},
		"statusquo":                 {title: "statusquo"},
		"my status:stored notes 修复": {title: "my notes 修复", status: filterStored},
	} {
		if got := parseFleetQuery(in); got != want {
			t.Errorf("parseFleetQuery(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// Whatever the line, the title part holds no status word, the status is one of the three or
// none, and taking the title apart again changes nothing.
func FuzzParseFleetQuery(f *testing.F) {
	for _, s := range []string{"", "status:running", "fix status:st tests", "STATUS:Error", "status:", "status:status:run", "a\tstatus:x\nb", "修复 status:r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := parseFleetQuery(s)
		if q.status != "" && q.status != filterRunning && q.status != filterStored && q.status != filterError {
			t.Fatalf("status %q", q.status)
		}
		if q.status != "" && q.bad != "" {
			t.Fatalf("both a status and a bad word: %+v", q)
		}
		again := parseFleetQuery(q.title)
		if again.title != q.title || again.status != "" || again.bad != "" {
			t.Fatalf("%q → %+v → %+v", s, q, again)
		}
	})
}

// A codexhost thread at rest whose latest turn failed shows as an error in the fleet and is
// kept by status:error; a new turn shows it running again, and one that completes, idle.
func TestFleetShowsAFailedTurnAsAnErrorAndFiltersIt(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) {
		return api.ThreadListResult{Threads: []model.ThreadInfo{
			{ID: idShell, Harness: "shell", Status: model.ThreadIdle, RunStatus: model.StatusFailed, Cwd: "/work", UpdatedAt: epoch.Add(-time.Minute)},
		}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, shellRow(t, a), "✗ error")
	a.search("status:error")
	if got := a.fleet.Title(); got != "Fleet · 1 of 4 · error" {
		t.Fatalf("title %q", got)
	}
	a.search("")
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idShell, Status: model.ThreadActive, TurnStatus: model.TurnInProgress}))
	mustNotContain(t, shellRow(t, a), "✗ error")
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idShell, Status: model.ThreadIdle, TurnStatus: model.TurnCompleted}))
	mustNotContain(t, shellRow(t, a), "✗ error")
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idShell, Status: model.ThreadIdle, TurnStatus: model.TurnFailed}))
	mustContain(t, shellRow(t, a), "✗ error")
}

// shellRow is the fleet's line of the fixture's shell thread.
func shellRow(t *testing.T, a *testApp) string {
	t.Helper()
	for _, l := range strings.Split(a.fleet.View(), "\n") {
		if strings.Contains(l, "(shell)") {
			return l
		}
	}
	t.Fatalf("no row of the shell thread:\n%s", a.fleet.View())
	return ""
}

// Scenario: issue 24 item 5. A search that hides the selected thread moves the transcript to
// the row the cursor lands on: before, it kept showing the hidden thread.
func TestTranscriptFollowsTheFilter(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"release", "status:running"} {
		rt := newFake()
		fleetFixture(rt)
		a := newTestApp(t, rt, 130, 34)
		if a.transcript.ref.ID != idA {
			t.Fatalf("transcript on %s before the search, want %s", a.transcript.ref.ID, idA)
		}
		a.search(q)
		if ref, ok := a.fleet.Selected(); !ok || ref.ID != idB {
			t.Fatalf("%q: cursor on %+v, want %s", q, ref, idB)
		}
		if a.transcript.ref.ID != idB {
			t.Fatalf("%q: transcript still on %s, want %s", q, a.transcript.ref.ID, idB)
		}
	}
}
