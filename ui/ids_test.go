package ui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Two UUIDv7 ids made in the same millisecond, ending alike.
const (
	idTwinA = "019a2327-1111-7000-8000-0000000001c7"
	idTwinB = "019a2327-1111-7000-8000-0000000002c7"
)

func TestShortIDsAreTheShortestUniqueEnd(t *testing.T) {
	t.Parallel()
	var x idIndex
	x.add(idTwinA, idTwinB, idShell)
	for id, want := range map[string]string{idTwinA: "019a2327…1c7", idTwinB: "019a2327…2c7", idShell: "11111111…55", "short": "short"} {
		if got := x.short(id); got != want {
			t.Errorf("short(%s) = %q, want %q", id, got, want)
		}
	}
	for in, want := range map[string]int{"019a2327…1c7": 1, "019a2327...2c7": 1, "019a2327…c7": 2, "2c7": 0, "02c7": 1, "019a2327": 2, idShell: 1, "": 0} {
		if got := len(x.match(in)); got != want {
			t.Errorf("match(%q) found %d, want %d", in, got, want)
		}
	}
}

func FuzzIDMatch(f *testing.F) {
	for _, s := range []string{"019a2327…1c7", "...", "…", "01", idShell, "  0000  ", "\x00…\xff"} {
		f.Add(s)
	}
	var x idIndex
	x.add(idTwinA, idTwinB, idShell, idA)
	f.Fuzz(func(t *testing.T, s string) {
		for _, id := range x.match(s) {
			if _, ok := x.known[id]; !ok {
				t.Fatalf("match(%q) found unknown %q", s, id)
			}
		}
		_ = x.short(s)
	})
}

// Scenario: issue 16 bug 6. Ids that share their time prefix and last characters show by
// their shortest distinguishing end, the same in the fleet and the transcript, and `o` takes
// that form and a title.
func TestAmbiguousIDsShowTheirUniqueEndAndOpenTakesIt(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) {
		return api.ThreadListResult{Threads: []model.ThreadInfo{
			{ID: idTwinA, Harness: "shell", Status: model.ThreadIdle, UpdatedAt: epoch},
			{ID: idTwinB, Harness: "shell", Status: model.ThreadIdle, UpdatedAt: epoch},
		}}, nil
	})
	rt.on(api.MethodThreadRead, func(raw json.RawMessage) (any, error) {
		var p api.ThreadReadParams
		_ = json.Unmarshal(raw, &p)
		return api.ThreadReadResult{Thread: model.ThreadInfo{ID: p.Thread, Harness: "shell", Status: model.ThreadIdle},
			Messages: []model.Message{
				{Role: model.RoleUser, Text: "one", TurnID: "019a2328-2222-7000-8000-00000000a0f1", At: epoch},
				{Role: model.RoleUser, Text: "two", TurnID: "019a2328-2222-7000-8000-00000000b0f1", At: epoch.Add(time.Second)},
			}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, a.fleet.View(), "019a2327…1c7 (shell)", "019a2327…2c7 (shell)")

	a.press(a.km.Global.Open)
	a.typeText("019a2327…2c7")
	a.send(keyOf(a.km.Input.Submit))
	if !a.transcript.has || a.transcript.ref.ID != idTwinB {
		t.Fatalf("o with a short id opened %+v", a.transcript.ref)
	}
	mustContain(t, a.transcript.View(), "turn 019a2328…a0f1", "turn 019a2328…b0f1")

	a.press(a.km.Global.Open)
	a.typeText("019a2327…c7")
	a.send(keyOf(a.km.Input.Submit))
	if !a.form.open || !strings.Contains(a.form.View(120)[0]+strings.Join(a.form.View(120), ""), "names 2 threads") {
		t.Fatalf("an ambiguous short id was not refused:\n%s", strings.Join(a.form.View(120), "\n"))
	}
	a.send(keyOf(a.km.Input.Cancel))

	a.press(a.km.Global.Open)
	a.typeText("release notes")
	a.send(keyOf(a.km.Input.Submit))
	if a.transcript.ref.ID != idB {
		t.Fatalf("o with a title opened %s", a.transcript.ref.ID)
	}
}
