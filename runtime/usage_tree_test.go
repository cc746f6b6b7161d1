package runtime

import (
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// wantTokens fails unless u holds exactly these counts (total = input + output) and turns.
func wantTokens(t *testing.T, what string, u *model.Usage, input, cached, output, reasoning int64, turns int) {
	t.Helper()
	want := model.TokenCounts{Input: input, CachedInput: cached, Output: output, Reasoning: reasoning, Total: input + output}
	if u == nil || u.TokenCounts != want || u.Turns != turns {
		t.Fatalf("%s: usage %+v, want %+v over %d turns", what, u, want, turns)
	}
}

// The meter harness reports 200 input and 20 output tokens of a priced model on its usage
// line; a task that asks for a child prints the committed blocks.md, whose task-create block
// makes one. Marker reports are answered without usage.
const meterScript = `p=$(cat); case "$p" in *"codexhost marker report"*) echo ok; exit 0;; esac
echo 'codexhost-usage: {"input":200,"cachedInput":0,"output":20,"reasoning":0,"model":"meter-model"}' >&2
case "$p" in *make-child*) cat blocks.md;; esac; echo done`

// This test stays beside the Host: it connects as the agents of two threads, whose tokens
// the Host's agent registry (Host.agents) mints and no exported method gives. The other
// usage tests live in runtime/threads.

// A delegation tree of depth 3 — a native root (real App Server turn), two metered external
// children, a thread a task-create block made, and a sibling that reports nothing — sums to
// each node's own and subtree's tokens, and to an estimate only from the priced model.
func TestLineageSumsUsageOverATreeOfDepthThreeWithAMarkerCreatedThread(t *testing.T) {
	t.Parallel()
	hs := markerHarnesses()
	hs["meter"] = config.Harness{Command: []string{"sh", "-c", meterScript}, AllowSandboxedCallers: true}
	hs["shell"] = config.Harness{Command: []string{"sh", "-c", "cat"}, AllowSandboxedCallers: true}
	th := newTestHost(t, hostOptions{codex: true, clients: []string{"bot", "other"}, harnesses: hs})
	th.cfg.Usage.Prices = map[string]config.UsagePrice{"meter-model": {Input: 1, Cached: 0.5, Output: 2}}
	if err := config.Save(th.home, th.cfg); err != nil {
		t.Fatal(err)
	}
	c := th.client("bot")
	repo := gitRepo(t, t.TempDir(), true)
	commitBlocks(t, repo, fence("task-create", `{"prompt":"leaf"}`))

	root := delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "root [[usage:100/0/10/0]]", Cwd: t.TempDir()}).Thread.ID
	waitStopped(t, c, root)
	child := func(parent, harness, task string) string {
		t.Helper()
		id := delegate(t, th.runtimeClient(), api.DelegateStartParams{Caller: api.CallerHint{ParentThread: parent}, Harness: harness, Task: task, Cwd: repo}).Thread.ID
		waitStopped(t, c, id)
		return id
	}
	mid := child(root, "meter", "middle")
	maker := child(mid, "meter", "make-child")
	silent := child(root, "shell", "no usage line")

	var lin api.ThreadLineageResult
	eventually(t, "the marker-created leaf with its usage", func() bool {
		lin = call[api.ThreadLineageResult](t, c, api.MethodThreadLineage, api.ThreadLineageParams{Thread: root})
		n := len(lin.Nodes)
		return n == 5 && lin.Nodes[n-1].Marker != nil && lin.Nodes[n-1].Usage != nil
	})
	nodes := map[string]api.LineageNode{}
	for _, n := range lin.Nodes {
		nodes[n.Thread.ID] = n
	}
	leaf := lin.Nodes[len(lin.Nodes)-1]
	if leaf.Parent != maker {
		t.Fatalf("leaf %s under %s, want under %s", leaf.Thread.ID, leaf.Parent, maker)
	}
	wantTokens(t, "leaf own", leaf.Usage, 200, 0, 20, 0, 1)
	wantTokens(t, "leaf tree", leaf.TreeUsage, 200, 0, 20, 0, 1)
	wantTokens(t, "maker tree", nodes[maker].TreeUsage, 400, 0, 40, 0, 2)
	wantTokens(t, "middle own", nodes[mid].Usage, 200, 0, 20, 0, 1)
	wantTokens(t, "middle tree", nodes[mid].TreeUsage, 600, 0, 60, 0, 3)
	wantTokens(t, "root own", nodes[root].Usage, 100, 0, 10, 0, 1)
	wantTokens(t, "root tree", nodes[root].TreeUsage, 700, 0, 70, 0, 4)
	wantTokens(t, "the tree", lin.Usage, 700, 0, 70, 0, 4)
	if s := nodes[silent]; s.Usage != nil || s.TreeUsage != nil {
		t.Fatalf("a harness without a usage line: own %+v tree %+v, want null", s.Usage, s.TreeUsage)
	}
	// Three metered turns at 200 in × 1 + 20 out × 2 per million; the root's model has no price.
	cost := lin.Usage.EstimatedCost
	if cost == nil || !cost.Estimate || cost.Amount != 0.00072 || cost.UnpricedTokens != 110 {
		t.Fatalf("tree estimate %+v", cost)
	}
	if nodes[root].Usage.EstimatedCost != nil {
		t.Fatalf("the unpriced root got an estimate %+v", nodes[root].Usage.EstimatedCost)
	}

	byTree := call[api.UsageSummaryResult](t, c, api.MethodUsageSummary, api.UsageSummaryParams{By: api.UsageByTree})
	if len(byTree.Rows) != 1 || byTree.Rows[0].Thread != root || byTree.Rows[0].Threads != 4 || byTree.Rows[0].Usage.Total != 770 {
		t.Fatalf("usage by tree: %+v", byTree.Rows)
	}
	byPrincipal := call[api.UsageSummaryResult](t, c, api.MethodUsageSummary, api.UsageSummaryParams{By: api.UsageByPrincipal, Since: "1d"})
	if len(byPrincipal.Rows) != 1 || byPrincipal.Rows[0].Principal != "client:bot" || byPrincipal.Rows[0].Day != model.Day(time.Now()) ||
		byPrincipal.Rows[0].Usage.Total != 770 {
		t.Fatalf("usage by principal: %+v", byPrincipal.Rows)
	}

	// Another client, and an agent of another principal's tree, sum only their own.
	other := th.client("other")
	theirs := delegate(t, other, api.DelegateStartParams{Harness: "shell", Task: "theirs", Cwd: t.TempDir()}).Thread.ID
	waitStopped(t, other, theirs)
	for who, cl := range map[string]*api.Client{"client other": other, "agent of other": th.shared(th.agents.ForThread(model.ThreadID(theirs)))} {
		if got := call[api.UsageSummaryResult](t, cl, api.MethodUsageSummary, api.UsageSummaryParams{By: api.UsageByTree}); len(got.Rows) != 0 || got.Total != nil {
			t.Fatalf("%s sees %+v", who, got)
		}
	}
	agent := th.shared(th.agents.ForThread(model.ThreadID(mid)))
	if got := call[api.UsageSummaryResult](t, agent, api.MethodUsageSummary, api.UsageSummaryParams{}); len(got.Rows) != 4 || got.Total.Total != 770 {
		t.Fatalf("an agent of the tree sees %+v", got)
	}
}
