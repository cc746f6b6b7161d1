package ui

import (
	"encoding/json"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

const idSup = "019a0000-0000-7000-8000-00000000005a"

// continueFixture answers catalog.continue with the supervised thread idSup of any source,
// new the first time and existing after, and makes idSup readable with thread.read.
func continueFixture(rt *fakeRuntime) {
	fleetFixture(rt)
	made := false
	rt.on(api.MethodCatalogContinue, func(raw json.RawMessage) (any, error) {
		var p api.CatalogContinueParams
		_ = json.Unmarshal(raw, &p)
		res := api.CatalogContinueResult{Host: "gateway:local", Source: p.Thread, State: model.SupervisionPending, Existing: made,
			Thread: model.ThreadInfo{ID: idSup, Harness: model.NativeHarness, Status: model.ThreadNotLoaded, Cwd: "/src/app"}}
		if !made {
			res.History = &api.CatalogBranchHistory{Messages: 4, Bytes: 120}
		}
		made = true
		return res, nil
	})
	read := rt.handlers[api.MethodThreadRead]
	rt.on(api.MethodThreadRead, func(raw json.RawMessage) (any, error) {
		var p api.ThreadReadParams
		_ = json.Unmarshal(raw, &p)
		if p.Thread == idSup {
			return api.ThreadReadResult{Thread: model.ThreadInfo{ID: idSup, Harness: model.NativeHarness, Status: model.ThreadNotLoaded},
				Messages: []model.Message{{Role: model.RoleUser, Text: "carried question"}, {Role: model.RoleAssistant, Text: "carried answer"}}}, nil
		}
		return read(raw)
	})
}

func TestContinueDialogExplainsBothOutcomesAndOnlyYConfirms(t *testing.T) {
	t.Parallel()
	rt := newFake()
	continueFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, a.view(), "c continue session")
	a.press(a.km.Fleet.Continue)
	if !a.confirm.open {
		t.Fatalf("no continue dialog:\n%s", a.view())
	}
	v := a.view()
	mustContain(t, v, "Continue session?", "gateway:local", "new branch", "visible history", "that supervised thread opens",
		"never resumed", "y continue", "(y/N)")

	for _, k := range []tea.KeyMsg{keymap.MustMsg("enter"), keymap.MustMsg("esc"), keymap.MustMsg("n"), keymap.MustMsg("Y"), keymap.MustMsg(" "), keymap.MustMsg("c")} {
		if !a.confirm.open {
			a.press(a.km.Fleet.Continue)
		}
		a.send(k) // opened by a key: answered at once, no grace
		if a.confirm.open {
			t.Fatalf("%q left the dialog open", k.String())
		}
		if n := len(callsTo[api.CatalogContinueParams](rt, api.MethodCatalogContinue)); n != 0 {
			t.Fatalf("%q continued", k.String())
		}
	}
	mustContain(t, a.view(), "cancelled: continuing 019a0000…a1")

	a.press(a.km.Fleet.Continue)
	a.press(a.km.Dialog.Confirm)
	calls := callsTo[api.CatalogContinueParams](rt, api.MethodCatalogContinue)
	if len(calls) != 1 || calls[0].Thread != idA || calls[0].Host != "gateway:local" {
		t.Fatalf("continue calls: %+v", calls)
	}
	// The reply opens the supervised thread, read as a codexhost thread, not through the catalog.
	if a.focus != paneTranscript || a.transcript.ref.ID != idSup || a.transcript.ref.catalog() {
		t.Fatalf("focus %v, transcript %+v", a.focus, a.transcript.ref)
	}
	reads := callsTo[api.ThreadReadParams](rt, api.MethodThreadRead)
	if len(reads) == 0 || reads[len(reads)-1].Thread != idSup {
		t.Fatalf("thread reads %+v", reads)
	}
	for _, r := range callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript) {
		if r.Thread == idSup {
			t.Fatal("the supervised thread was read through the catalog")
		}
	}
	v = a.view()
	mustContain(t, v, "new supervised thread 019a0000…5a (pending, 4 message(s) carried) of 019a0000…a1", "carried answer")
}

func TestContinueFromTheTranscriptOpensTheExistingThread(t *testing.T) {
	t.Parallel()
	rt := newFake()
	continueFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Down)
	a.press(a.km.List.Down)
	a.press(a.km.List.Select)
	if a.focus != paneTranscript || a.transcript.ref.ID != idC {
		t.Fatalf("focus %v on %+v", a.focus, a.transcript.ref)
	}
	a.press(a.km.Fleet.Continue)
	a.press(a.km.Dialog.Confirm) // first: a new branch
	a.setFocus(paneFleet)
	a.press(a.km.Fleet.Continue)
	a.press(a.km.Dialog.Confirm) // again: the same thread opens
	calls := callsTo[api.CatalogContinueParams](rt, api.MethodCatalogContinue)
	if len(calls) != 2 || calls[0].Thread != idC || calls[0].Host != "gateway:local" || calls[1].Thread != idC {
		t.Fatalf("continue calls: %+v", calls)
	}
	if a.focus != paneTranscript || a.transcript.ref.ID != idSup {
		t.Fatalf("focus %v, transcript %+v", a.focus, a.transcript.ref)
	}
	mustContain(t, a.view(), "opened supervised thread 019a0000…5a (pending) of 019a0000…c3")
}

func TestContinueErrorsAndRefusals(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogContinue, func(json.RawMessage) (any, error) {
		return nil, model.Errorf(model.CodeFailedPrecondition, "wait until its turn ends", "thread %s is active", idB)
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Down)
	a.press(a.km.Fleet.Continue)
	mustContain(t, a.view(), "It is running a turn now")
	a.press(a.km.Dialog.Confirm)
	if a.focus != paneFleet {
		t.Fatalf("a failed continue moved the focus to %v", a.focus)
	}
	mustContain(t, a.view(), "! continue 019a0000…b2", "FAILED_PRECONDITION")

	// Threads of external harnesses are no sessions to continue.
	a.press(a.km.List.Bottom)
	a.press(a.km.Fleet.Continue)
	if a.confirm.open {
		t.Fatal("continue offered for an external thread")
	}
	mustContain(t, a.view(), `! continue: 11111111…55 runs on harness "shell"`)

	// The lineage pane has no continue.
	a.press(a.km.List.Top)
	a.press(a.km.Global.Lineage)
	a.press(a.km.Fleet.Continue)
	if a.confirm.open {
		t.Fatal("continue opened from the lineage pane")
	}
	if n := len(callsTo[api.CatalogContinueParams](rt, api.MethodCatalogContinue)); n != 1 {
		t.Fatalf("%d continue calls", n)
	}
}

// Scenario: S003-20 — a node row whose host offers no continue says so at once and asks the
// runtime nothing; a node that offers it explains the binding to the exact node thread.
func TestContinueOnANodeRowFollowsItsHostsCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		caps     []string
		dialog   bool
		mustShow string
	}{
		{"no continue", []string{api.CatalogCapList, api.CatalogCapTranscript}, false, "offers no continue now"},
		{"continue", []string{api.CatalogCapList, api.CatalogCapTranscript, api.CatalogCapContinue}, true, "bound to this exact thread on the node"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newFake()
			fleetFixture(rt)
			rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
				return api.CatalogHostsResult{Hosts: []api.CatalogHost{{ID: "node:lab", Kind: api.CatalogHostNode, Capabilities: tc.caps, Health: api.CatalogHealth{State: api.CatalogHealthOK}}}}, nil
			})
			rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
				return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "node:lab", Sessions: []api.CatalogSession{
					{ID: idA, Title: "a node session", Status: model.ThreadIdle, UpdatedAt: epoch}}}}}, nil
			})
			a := newTestApp(t, rt, 130, 34)
			a.press(a.km.Fleet.Continue)
			if a.confirm.open != tc.dialog {
				t.Fatalf("dialog open %v, want %v:\n%s", a.confirm.open, tc.dialog, a.view())
			}
			mustContain(t, a.view(), tc.mustShow)
			if len(callsTo[api.CatalogContinueParams](rt, api.MethodCatalogContinue)) != 0 {
				t.Fatal("continue reached the runtime before a confirmation")
			}
		})
	}
}
