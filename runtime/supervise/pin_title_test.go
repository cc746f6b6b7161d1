package supervise_test

import (
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A continued session is listed under its source's title marked "(branch)"; a title search
// finds it under that title too, as it finds the source, once its first send made the
// canonical Codex thread: the search reads Codex's names, so the branch carries it there.
func TestBranchIsFoundByTheTitleItIsListedUnder(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Operators: []string{"ops"}})
	c := th.Client("ops")
	src := hosttest.Stored(t, th.CodexHome, "fix the parser please")
	codexfixture.Name(t, th.CodexHome, src, "Fix the parser")
	sid := hosttest.Call[api.CatalogContinueResult](t, c, api.MethodCatalogContinue, api.CatalogContinueParams{Thread: src}).Thread.ID
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: sid, Message: "go on"})
	hosttest.WaitStopped(t, c, sid)

	res := hosttest.Call[api.CatalogSessionsResult](t, c, api.MethodCatalogSessions,
		api.CatalogSessionsParams{Host: catalog.LocalHostID, Search: "PARSER (branch", Limit: 10})
	if len(res.Hosts) != 1 || res.Hosts[0].Error != nil {
		t.Fatalf("search: %+v", res.Hosts)
	}
	rows := res.Hosts[0].Sessions
	if len(rows) != 1 || rows[0].CodexhostThread != sid || rows[0].Title != "Fix the parser (branch)" {
		t.Fatalf("search for the branch's title found %+v, want the canonical session of %s", rows, sid)
	}
}
