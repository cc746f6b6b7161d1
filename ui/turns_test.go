package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func readShell(rt *fakeRuntime, status string, last *model.TurnSummary, msgs ...model.Message) {
	rt.on(api.MethodThreadRead, func(json.RawMessage) (any, error) {
		return api.ThreadReadResult{Thread: model.ThreadInfo{ID: idShell, Harness: "shell", Status: status, LastTurn: last}, Messages: msgs}, nil
	})
}

// Scenario: issue 16 bug 5. The runtime's own threads show how their turns ended: a
// cancelled turn reads interrupted, a failed one the reason thread.read gives.
func TestTranscriptShowsTurnOutcomesWithTheirReason(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	at := epoch.Add(-time.Minute)
	readShell(rt, model.ThreadIdle, &model.TurnSummary{ID: "t-2", Status: model.TurnFailed, Error: "harness exited with status 3", StartedAt: &at},
		model.Message{Role: model.RoleUser, Text: "first", TurnID: "t-1", At: at},
		model.Message{Role: model.RoleUser, Text: "second", TurnID: "t-2", At: at})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.List.Select)
	mustContain(t, a.transcript.View(), "turn t-2 · error", "✗ error: harness exited with status 3")

	// A turn cancelled before any message still shows, as interrupted.
	readShell(rt, model.ThreadIdle, &model.TurnSummary{ID: "t-3", Status: model.TurnInterrupted, StartedAt: &at},
		model.Message{Role: model.RoleUser, Text: "first", TurnID: "t-1", At: at})
	a.press(a.km.Global.Refresh)
	mustContain(t, a.transcript.View(), "turn t-3 · interrupted", "■ interrupted")
}

// Scenario: issue 16 bug 4. A running turn shows a spinner and its elapsed time in the
// transcript, and its messages as the runtime reports each (thread.progress).
func TestRunningTurnShowsSpinnerElapsedAndProgress(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	started := epoch.Add(-65 * time.Second)
	running := &model.TurnSummary{ID: "t-1", Status: model.TurnInProgress, StartedAt: &started}
	readShell(rt, model.ThreadActive, running, model.Message{Role: model.RoleUser, Text: "count the files", TurnID: "t-1", At: started})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.List.Select)
	mustContain(t, a.transcript.View(), a.c.spinner()+" running 1m05s", "turn t-1 · running")
	if !a.anyRunning() {
		t.Fatal("no ticker for a running turn")
	}
	readShell(rt, model.ThreadActive, running,
		model.Message{Role: model.RoleUser, Text: "count the files", TurnID: "t-1", At: started},
		model.Message{Role: model.RoleAssistant, Text: "Counting: 3 so far", TurnID: "t-1", At: epoch})
	a.clk.advance(10 * time.Second)
	a.send(EventMsg(api.Event{Type: api.EventThreadProgress, Thread: idShell, Status: model.ThreadActive, TurnID: "t-1"}))
	mustContain(t, a.transcript.View(), "Counting: 3 so far", " running 1m15s")
}

func TestRunningRowsTurnInTheFleetAndTheStatusBarCountsThem(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	runningThreads(rt, 2)
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, a.fleet.View(), a.c.spinner()+" running   task 1")
	mustContain(t, a.view(), "3 turns running") // two here, and one waiting on approval
}

// In a narrow fleet the running badge is the spinner alone, not a cut word.
func TestNarrowFleetRowShowsTheSpinnerGlyph(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	runningThreads(rt, 1)
	a := newTestApp(t, rt, 80, 24)
	mustContain(t, a.fleet.View(), a.c.spinner()+" task 1")
}

// Scenario: issue 24 item 5. A failed native turn shows the reason Codex gave, not a bare
// "✗ error": the catalog's turn carries it.
func TestCatalogFailedTurnShowsItsReason(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	at := epoch.Add(-time.Minute)
	rt.on(api.MethodCatalogTranscript, func(json.RawMessage) (any, error) {
		return api.CatalogTranscriptResult{Host: "gateway:local", Thread: idA, Turns: []api.CatalogTurn{
			{ID: "turn-9", Status: model.TurnFailed, StartedAt: &at, Error: "stream disconnected before completion: idle timeout",
				Messages: []model.Message{{Role: model.RoleUser, Text: "try the build"}}},
		}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Select)
	mustContain(t, a.transcript.View(), "✗ error: stream disconnected before completion: idle timeout")
}

// Scenario: issue 24 item 5. A thread at rest whose latest turn failed reads as an error in
// the fleet, its transcript header and the lineage alike (before: "✗ error" in the fleet,
// "○ idle" in the other two).
func TestFailedThreadReadsAsErrorInEveryPane(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	at := epoch.Add(-time.Minute)
	failed := &model.TurnSummary{ID: "t-1", Status: model.TurnFailed, Error: "harness exited with status 3", StartedAt: &at}
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) {
		return api.ThreadListResult{Threads: []model.ThreadInfo{
			{ID: idShell, Harness: "shell", Title: "count the files", Status: model.ThreadIdle, LastTurn: failed, UpdatedAt: epoch.Add(-time.Minute)},
		}}, nil
	})
	readShell(rt, model.ThreadIdle, failed, model.Message{Role: model.RoleUser, Text: "count the files", TurnID: "t-1", At: at})
	rt.on(api.MethodThreadLineage, func(json.RawMessage) (any, error) {
		return api.ThreadLineageResult{Focus: idShell, Root: idShell, Nodes: []api.LineageNode{
			{Thread: model.ThreadInfo{ID: idShell, Harness: "shell", Title: "count the files", Status: model.ThreadIdle, LastTurn: failed}, Children: []string{}},
		}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.List.Select)
	if ref, _ := a.fleet.Selected(); !ref.Failed {
		t.Fatalf("fleet row %+v not failed", ref)
	}
	head := strings.SplitN(a.transcript.View(), "\n", 2)[0]
	mustContain(t, head, "✗ error")
	mustNotContain(t, head, "○ idle")
	lin := a.lineage.View()
	mustContain(t, lin, "✗", "its last turn failed")
	mustNotContain(t, lin, "○")
}
