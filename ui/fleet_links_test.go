package ui

import (
	"encoding/json"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

const (
	idSource    = "019a0000-0000-7000-8000-0000000000b1"
	idBranch    = "019a0000-0000-7000-8000-0000000000b2"
	idCanonical = "019a0000-0000-7000-8000-0000000000b3"
)

// A continued session is one row wherever it is: in codexhost threads while its branch has no
// Codex thread, kept there while it moves, then under its host as the branch (◇, by its
// codexhost id), never in both. The fleet asks thread.list for what no host lists.
func TestFleetShowsAContinuedSessionOnceAsItMovesToItsHost(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	bound := false
	source := api.CatalogSession{ID: idSource, Title: "Fix the parser", Status: model.ThreadNotLoaded, UpdatedAt: epoch}
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		rows := []api.CatalogSession{source}
		if bound {
			rows = append(rows, api.CatalogSession{ID: idCanonical, Title: "Fix the parser (branch)", Status: model.ThreadIdle, UpdatedAt: epoch,
				SessionLink: api.SessionLink{CodexhostThread: idBranch, BranchOf: &model.BranchSource{Host: "gateway:local", Thread: idSource}}})
		}
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: rows}}}, nil
	})
	listed := true // the branch is outside the catalog
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) {
		res := api.ThreadListResult{Threads: []model.ThreadInfo{}}
		if listed {
			res.Threads = append(res.Threads, model.ThreadInfo{ID: idBranch, Harness: model.NativeHarness, Status: model.ThreadIdle, Title: "Fix the parser (branch)",
				UpdatedAt: epoch, BranchOf: &model.BranchSource{Host: "gateway:local", Thread: idSource}})
		}
		return res, nil
	})
	a := newTestApp(t, rt, 130, 34)
	for _, p := range callsTo[api.ThreadListParams](rt, api.MethodThreadList) {
		if !p.OutsideCatalog {
			t.Fatalf("the fleet asked for every thread: %+v", p)
		}
	}
	v := a.fleet.View()
	mustContain(t, v, "gateway:local  ✓ ok · 1", "codexhost threads  ✓ ok · 1", "Fix the parser (branch)")
	mustNotContain(t, v, "◇")

	// Its first send made its Codex thread: thread.list leaves it to the host, whose page has
	// not been read again yet, so it stays where it was.
	bound, listed = true, false
	a.send(threadChangedMsg{id: idBranch})
	mustContain(t, a.fleet.View(), "gateway:local  ✓ ok · 1", "codexhost threads  ✓ ok · 1", "Fix the parser (branch)")

	// The host's page brings it: one row, under the host, by its codexhost id.
	a.press(a.km.Global.Refresh)
	v = a.fleet.View()
	mustContain(t, v, "gateway:local  ✓ ok · 2", "codexhost threads  ✓ ok · 0", "◇ Fix the parser (branch)")
	if got := a.fleet.Title(); got != "Fleet · 2" {
		t.Fatalf("title %q", got)
	}
	var refs []threadRef
	for _, g := range a.fleet.groups {
		for _, r := range g.rows {
			if r.ref.ID == idBranch || r.ref.ID == idCanonical {
				refs = append(refs, r.ref)
			}
		}
	}
	if len(refs) != 1 || refs[0].ID != idBranch || refs[0].Session != idCanonical || !refs[0].Linked || refs[0].BranchThread != idSource {
		t.Fatalf("rows of the branch: %+v", refs)
	}
	// Its transcript head names the session and the source.
	a.press(a.km.List.Bottom)
	a.press(a.km.List.Select)
	mustContain(t, a.view(), "· branch of 019a0000…b1 · session 019a0000…b3 ·")
}
