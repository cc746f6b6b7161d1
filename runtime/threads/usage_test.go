package threads_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Real App Server turns: each turn's tokens come from thread/tokenUsage/updated (the fake
// model's usage), the thread keeps their sum and its context fill, a turn whose response
// reports no usage adds nothing, and the totals survive a restart of the runtime.
func TestNativeTurnsRecordTokenUsageAndARestartKeepsTheTotals(t *testing.T) {
	t.Parallel()
	th := hosttest.New(t, hosttest.Options{Codex: true, Clients: []string{"bot"}})
	c := th.Client("bot")
	cwd := t.TempDir()
	metered := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "first [[usage:100/20/30/5]]", Cwd: cwd}).Thread.ID
	first := hosttest.WaitStopped(t, c, metered)
	wantTokens(t, "after one turn", first.Thread.Usage, 100, 20, 30, 5, 1)
	if u := first.Thread.Usage; u.ContextWindow <= 0 || u.ContextTokens != 130 || u.ContextFill == nil || *u.ContextFill <= 0 {
		t.Fatalf("context of a finished turn: %+v", u)
	}
	if u := first.Thread.Usage; u.EstimatedCost != nil {
		t.Fatalf("an estimate without any price: %+v", u.EstimatedCost)
	}

	hosttest.Call[api.ThreadSendResult](t, c, api.MethodThreadSend, api.ThreadSendParams{Thread: metered, Message: "second [[usage:50/0/10/0]]"})
	hosttest.WaitStopped(t, c, metered)
	wantTokens(t, "after two turns", hosttest.ReadThread(t, c, metered).Thread.Usage, 150, 20, 40, 5, 2)

	silent := hosttest.Delegate(t, c, api.DelegateStartParams{Harness: "codex", Task: "quiet [[mode:nousage]]", Cwd: cwd}).Thread.ID
	quiet := hosttest.WaitStopped(t, c, silent)
	if u := quiet.Thread.Usage; u != nil {
		t.Fatalf("a thread whose model reported no usage has usage %+v, want null", u)
	}

	th.Restart()
	c = th.Client("bot")
	wantTokens(t, "after a restart", hosttest.ReadThread(t, c, metered).Thread.Usage, 150, 20, 40, 5, 2)
	list := hosttest.Call[api.ThreadListResult](t, c, api.MethodThreadList, api.ThreadListParams{AnyCwd: true})
	for _, info := range list.Threads {
		if info.ID == metered {
			wantTokens(t, "thread list", info.Usage, 150, 20, 40, 5, 2)
		}
	}
	raw := hosttest.CallRaw(t, c, api.MethodThreadRead, api.ThreadReadParams{Thread: metered})
	var wire struct {
		Thread map[string]json.RawMessage `json:"thread"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil || !strings.Contains(string(wire.Thread["usage"]), `"cachedInput":20`) {
		t.Fatalf("thread read's usage on the wire: %s (%v)", wire.Thread["usage"], err)
	}
	sum := hosttest.Call[api.UsageSummaryResult](t, c, api.MethodUsageSummary, api.UsageSummaryParams{})
	if len(sum.Rows) == 0 || sum.Rows[0].Thread != metered || sum.Rows[0].Usage.Total != 190 || sum.Total.Total != 190 {
		t.Fatalf("usage by thread: %+v", sum)
	}
}
