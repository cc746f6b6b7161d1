package threads_test

import (
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A thread made with `continue` runs its turns on a canonical Codex thread of its own; the
// App Server reports their usage under that id. The usage belongs to the supervised thread
// the user knows: its read, its lineage node, and its rows by thread and by tree, before and
// after a restart, and on its session in the host's catalog page; the canonical id never
// shows as a thread of its own.
func TestUsageOfAContinuedThreadIsItsOwnAndARestartKeepsIt(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	src, _ := codexfixture.StoredThread(t, th.CodexHome, "", "an earlier question")
	cont := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	id := cont.Thread.ID

	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: id, Message: "go on [[usage:100/20/30/5]]"})
	wantTokens(t, "wait after the first turn", hosttest.WaitStopped(t, c, id).Thread.Usage, 100, 20, 30, 5, 1)
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: id, Message: "and on [[usage:50/0/10/0]]"})
	hosttest.WaitStopped(t, c, id)
	canonical := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}).CanonicalThread
	if canonical == "" || canonical == id {
		t.Fatalf("continued thread %s has canonical thread %q", id, canonical)
	}

	check := func(when string) {
		t.Helper()
		wantTokens(t, when+": read", hosttest.ReadThread(t, c, id).Thread.Usage, 150, 20, 40, 5, 2)
		lin := hosttest.Call[api.ThreadLineageResult](t, c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: id})
		if len(lin.Nodes) != 1 {
			t.Fatalf("%s: lineage of %s has %d nodes", when, id, len(lin.Nodes))
		}
		wantTokens(t, when+": lineage node", lin.Nodes[0].Usage, 150, 20, 40, 5, 2)
		wantTokens(t, when+": lineage tree", lin.Nodes[0].TreeUsage, 150, 20, 40, 5, 2)
		for _, by := range []string{api.UsageByThread, api.UsageByTree} {
			sum := hosttest.Call[api.UsageSummaryResult](t, c, api.MethodUsageSummary, api.UsageSummaryParams{By: by})
			if len(sum.Rows) != 1 || sum.Rows[0].Thread != id || sum.Rows[0].Usage.Total != 190 || sum.Total.Total != 190 {
				t.Fatalf("%s: usage by %s: %+v, want one row of %s with 190 tokens (canonical %s)", when, by, sum.Rows, id, canonical)
			}
		}
	}
	sessions := hosttest.Call[api.CatalogSessionsResult](t, c, api.MethodCatalogSessions, api.CatalogSessionsParams{Host: "gateway:local"})
	var listed *api.CatalogSession
	for _, h := range sessions.Hosts {
		for i, ss := range h.Sessions {
			if ss.ID == canonical {
				listed = &h.Sessions[i]
			}
		}
	}
	if listed == nil || listed.CodexhostThread != id {
		t.Fatalf("the canonical session %s is not listed as driven by %s: %+v", canonical, id, listed)
	}
	wantTokens(t, "catalog session", listed.Usage, 150, 20, 40, 5, 2)
	check("running")
	th.Restart()
	c = th.Client("ops")
	check("after a restart")
}
