package fleet_test

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A home where one stored session was continued and sent to (so its canonical Codex thread
// exists), another continued but not yet sent to, a native and an external thread delegated,
// and two sessions no one touched: the catalog lists every native session once under its
// host, naming the codexhost thread that drives it and the source a branch continues (with
// the source's title while it has none), and thread.list with OutsideCatalog gives exactly
// the rest. Together they show each thread of `thread list` once.
func TestEachNativeSessionIsListedOnceAndABranchLinksItsSource(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	src := hosttest.Stored(t, th.CodexHome, "fix the parser please")
	codexfixture.Name(t, th.CodexHome, src, "Fix the parser")
	pendingSrc := hosttest.Stored(t, th.CodexHome, "pending work")
	codexfixture.Name(t, th.CodexHome, pendingSrc, "Pending work")
	untouched := hosttest.Stored(t, th.CodexHome, "untouched")

	cont := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src})
	sid := cont.Thread.ID
	if cont.Thread.BranchOf == nil || *cont.Thread.BranchOf != (model.BranchSource{Host: catalog.LocalHostID, Thread: src}) ||
		cont.Thread.Title != "Fix the parser (branch)" {
		t.Fatalf("continue: thread %+v", cont.Thread)
	}
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "go on"})
	hosttest.WaitStopped(t, c, sid)
	sup, err := th.Store().Supervision(model.ThreadID(sid))
	if err != nil || sup.Canonical == "" {
		t.Fatalf("binding %+v %v", sup, err)
	}
	canonical := string(sup.Canonical)
	pid := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: pendingSrc}).Thread.ID
	native := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "native task", Cwd: t.TempDir()}).Thread.ID
	external := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "shell", Task: "external task", Cwd: t.TempDir()}).Thread.ID
	hosttest.WaitStopped(t, c, native)
	hosttest.WaitStopped(t, c, external)

	// The catalog: every native session once, linked where a codexhost thread drives it.
	var progress []api.CatalogHostSessions
	var res api.CatalogSessionsResult
	if err := c.CallEvents(context.Background(), api.MethodCatalogSessions, api.CatalogSessionsParams{Host: catalog.LocalHostID, Limit: 100, Progress: true}, &res,
		func(ev api.Event) {
			if ev.Type == api.EventCatalogHost && ev.Catalog != nil {
				progress = append(progress, *ev.Catalog)
			}
		}); err != nil {
		t.Fatal(err)
	}
	if len(res.Hosts) != 1 || len(progress) != 1 {
		t.Fatalf("pages %+v, progress %+v", res.Hosts, progress)
	}
	for _, page := range [][]api.CatalogSession{res.Hosts[0].Sessions, progress[0].Sessions} {
		rows := map[string]api.CatalogSession{}
		for _, s := range page {
			if _, dup := rows[s.ID]; dup {
				t.Fatalf("session %s listed twice", s.ID)
			}
			rows[s.ID] = s
		}
		if len(rows) != 5 {
			t.Fatalf("sessions %+v: want src, pending source, untouched, canonical and native", page)
		}
		for _, id := range []string{src, pendingSrc, untouched} {
			if s := rows[id]; s.CodexhostThread != "" || s.BranchOf != nil {
				t.Fatalf("session %s nothing drives: %+v", id, s)
			}
		}
		if s := rows[canonical]; s.CodexhostThread != sid || s.BranchOf == nil || *s.BranchOf != (model.BranchSource{Host: catalog.LocalHostID, Thread: src}) ||
			s.Title != "Fix the parser (branch)" {
			t.Fatalf("canonical session: %+v", s)
		}
		if s := rows[native]; s.CodexhostThread != native || s.BranchOf != nil {
			t.Fatalf("delegated native session: %+v", s)
		}
	}

	// The transcript of the canonical session says the same.
	tr := hosttest.Call[api.CatalogTranscriptResult](t, c, api.MethodCatalogTranscript, api.CatalogTranscriptParams{Thread: canonical})
	if tr.CodexhostThread != sid || tr.BranchOf == nil || tr.BranchOf.Thread != src || len(tr.Turns) != 1 {
		t.Fatalf("transcript of the canonical session: %+v", tr)
	}
	rd := hosttest.ReadThread(t, c, sid)
	if rd.Thread.BranchOf == nil || rd.Thread.BranchOf.Thread != src || rd.Thread.Title != "Fix the parser (branch)" {
		t.Fatalf("read of the supervised thread: %+v", rd.Thread)
	}
	// A name of its own wins over its source's.
	nc, err := th.Native().Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Call(context.Background(), "thread/name/set", map[string]any{"threadId": canonical, "name": "Parser, part two"}, nil); err != nil {
		t.Fatal(err)
	}
	if rd := hosttest.ReadThread(t, c, sid); rd.Thread.Title != "Parser, part two" || rd.Thread.BranchOf == nil {
		t.Fatalf("read of the renamed branch: %+v", rd.Thread)
	}

	// What no host lists: the external thread and the branch before its first turn.
	outside := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true, OutsideCatalog: true})
	if ids := hosttest.ThreadIDs(outside.Threads); !hosttest.SameSet(ids, []string{pid, external}) {
		t.Fatalf("outside the catalog %v, want %s and %s", ids, pid, external)
	}
	for _, ti := range outside.Threads {
		if ti.ID == pid && (ti.BranchOf == nil || ti.BranchOf.Thread != pendingSrc || ti.Title != "Pending work (branch)") {
			t.Fatalf("pending branch: %+v", ti)
		}
	}

	// The fleet's rows (sessions by the thread that drives them, then the rest) are the
	// thread list's, each once.
	fleet := hosttest.ThreadIDs(outside.Threads)
	for _, s := range res.Hosts[0].Sessions {
		id := s.ID
		if s.CodexhostThread != "" {
			id = s.CodexhostThread
		}
		fleet = append(fleet, id)
	}
	all := hosttest.ThreadIDs(hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true, Limit: 100}).Threads)
	sort.Strings(fleet)
	sort.Strings(all)
	if !slices.Equal(fleet, all) || slices.Contains(all, canonical) {
		t.Fatalf("fleet rows %v, thread list %v", fleet, all)
	}
}
