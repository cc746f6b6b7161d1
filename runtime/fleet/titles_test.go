package fleet_test

import (
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: issue 24 item 5. An external thread has no title of its own; it shows the first
// line of its task in the start response, thread.read, thread.list and the lineage, so the
// lineage tree is not ids only.
func TestExternalThreadTitleIsTheTasksFirstLine(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}})
	c := th.Client("bot")
	const want = "Fix the flaky cache test"
	res := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "\n  Fix the   flaky cache test\nthen run the suite", Cwd: t.TempDir()})
	if got := hosttest.ReadThread(t, c, res.Thread.ID).Thread.Title; got != want {
		t.Fatalf("thread.read title %q, want %q", got, want)
	}
	list := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{})
	if row, ok := findThread(list.Threads, res.Thread.ID); !ok || row.Title != want {
		t.Fatalf("thread.list row %+v (found %v), want title %q", row, ok, want)
	}
	lin := hosttest.Call[api.ThreadLineageResult](t, c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: res.Thread.ID})
	for _, n := range lin.Nodes {
		if n.Thread.ID == res.Thread.ID && n.Thread.Title != want {
			t.Fatalf("lineage node title %q, want %q", n.Thread.Title, want)
		}
	}
}

// Scenario: issue 24 item 5. A native thread codexhost starts is named in Codex after its
// task's first line (records keep no task text), so the fleet's row, thread.read and any
// other Codex client show a title instead of a bare id.
func TestNativeThreadIsNamedAfterItsTask(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	const want = "Refactor the parser"
	id := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "\n  Refactor the\tparser \u202e\nand keep the tests", Cwd: t.TempDir()}).Thread.ID
	hosttest.WaitStopped(t, c, id)
	if got := hosttest.ReadThread(t, c, id).Thread.Title; got != want {
		t.Fatalf("thread.read title %q, want %q", got, want)
	}
	res := hosttest.Call[api.CatalogSessionsResult](t, c, api.MethodCatalogSessions, api.CatalogSessionsParams{Host: catalog.LocalHostID, Limit: 100})
	for _, s := range res.Hosts[0].Sessions {
		if s.ID == id {
			if s.Title != want {
				t.Fatalf("fleet row title %q, want %q", s.Title, want)
			}
			return
		}
	}
	t.Fatalf("thread %s not in the fleet: %+v", id, res.Hosts[0].Sessions)
}

func findThread(threads []model.ThreadInfo, id string) (model.ThreadInfo, bool) {
	for _, th := range threads {
		if th.ID == id {
			return th, true
		}
	}
	return model.ThreadInfo{}, false
}
