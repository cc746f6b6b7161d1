package threads_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// A delegation chain deeper than any fixed bound on the climb to its root stays its client's:
// the client lists and sends to its deepest thread, a usage summary counts the chain as one
// tree of the client, and an agent deep in the chain acts on its own child. (The climb once
// stopped 32 steps up, giving every deeper thread an ancestor's id as its principal.)
func TestADeepDelegationChainKeepsItsClientsPrincipal(t *testing.T) {
	t.Parallel()
	hs := hosttest.Harnesses()
	hs["metered"] = config.Harness{Command: []string{"sh", "-c", `cat; echo 'codexhost-usage: {"input":1,"output":1}' >&2`}}
	th := hosttest.New(t, hosttest.Options{Clients: []string{"bot"}, Harnesses: hs})
	c, cwd := th.Client("bot"), t.TempDir()
	const depth = 40
	chain := []string{}
	for i := range depth {
		p := api.DelegateStartParams{Harness: "metered", Task: fmt.Sprintf("link %d", i), Cwd: cwd}
		if i > 0 {
			p.Caller.ParentThread = chain[i-1]
		}
		chain = append(chain, hosttest.Delegate(t, c, p).Thread.ID)
	}
	for _, id := range chain {
		hosttest.WaitStopped(t, c, id)
	}
	deepest := chain[depth-1]

	var listed []string
	for cursor := ""; ; {
		page := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true, Limit: 100, Cursor: cursor})
		listed = append(listed, hosttest.ThreadIDs(page.Threads)...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Contains(listed, deepest) || len(listed) != depth {
		t.Fatalf("the client lists %d of its %d threads (the deepest listed: %v)", len(listed), depth, slices.Contains(listed, deepest))
	}
	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: deepest, Message: "again"})
	hosttest.WaitStopped(t, c, deepest)

	sum := hosttest.Call[api.UsageSummaryResult](t, c, api.MethodUsageSummary, api.UsageSummaryParams{By: api.UsageByTree})
	if len(sum.Rows) != 1 || sum.Rows[0].Thread != chain[0] || sum.Rows[0].Principal != "client:bot" || sum.Rows[0].Threads != depth {
		t.Fatalf("usage by tree: %+v, want one tree of %d threads rooted at %s, client:bot's", sum.Rows, depth, chain[0])
	}

	// The deepest thread's agent acts on its parent, in its own tree (the runtime's handler,
	// with the caller a thread token resolves to).
	agent := api.Caller{Kind: api.CallerRuntime, Thread: deepest}
	params, _ := json.Marshal(api.ThreadCancelParams{Thread: chain[depth-2], IdleOK: true})
	if _, err := th.Handle(t.Context(), agent, api.MethodThreadCancel, params); err != nil {
		t.Fatalf("the deepest thread's agent cancelling its parent: %v", err)
	}
}
