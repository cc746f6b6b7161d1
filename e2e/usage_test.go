package e2e

import (
	"strings"
	"syscall"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codexfixture"
)

type usageTokens struct {
	Input       int64 `json:"input"`
	CachedInput int64 `json:"cachedInput"`
	Output      int64 `json:"output"`
	Total       int64 `json:"total"`
	Turns       int   `json:"turns"`
}

// A thread made with `codexhost continue` from a stored session, as a person runs it: its
// turns' tokens (the fake model's usage) are its own in `thread read`, `lineage --json` and
// `codexhost usage --by thread|tree`, and a SIGKILL of serve right after the turn keeps them.
func TestUsageOfAContinuedThreadSurvivesAKilledRuntime(t *testing.T) {
	h := startHost(t, hostConfig{})
	src, _ := codexfixture.StoredThread(t, h.codexHome, "", "an earlier question")
	var cont struct {
		Thread struct {
			ID string `json:"threadId"`
		} `json:"thread"`
	}
	h.operator("continue", src, "--json").decode(t, &cont)
	id := cont.Thread.ID
	if id == "" || id == src {
		t.Fatalf("continue made thread %q of %s", id, src)
	}
	h.operator("thread", "send", id, "--operator", "--message", "go on [[usage:1000/200/300/40]]").decode(t, &struct{}{})
	h.operator("thread", "wait", id, "--operator", "--timeout-ms", "20000").decode(t, &struct{}{})

	check := func(when string) {
		t.Helper()
		want := usageTokens{Input: 1000, CachedInput: 200, Output: 300, Total: 1300, Turns: 1}
		var read struct {
			Thread struct {
				Usage *usageTokens `json:"usage"`
			} `json:"thread"`
		}
		h.operator("thread", "read", id, "--operator").decode(t, &read)
		if u := read.Thread.Usage; u == nil || *u != want {
			t.Fatalf("%s: thread read's usage %+v, want %+v", when, u, want)
		}
		var lin struct {
			Usage *usageTokens `json:"usage"`
		}
		h.operator("lineage", id, "--json").decode(t, &lin)
		if u := lin.Usage; u == nil || u.Total != want.Total {
			t.Fatalf("%s: lineage's tree usage %+v, want %d tokens", when, u, want.Total)
		}
		for _, by := range []string{"thread", "tree"} {
			var sum struct {
				Rows []struct {
					Thread string      `json:"thread"`
					Usage  usageTokens `json:"usage"`
				} `json:"rows"`
			}
			h.operator("usage", "--by", by, "--json").decode(t, &sum)
			if len(sum.Rows) != 1 || sum.Rows[0].Thread != id || sum.Rows[0].Usage.Total != want.Total {
				t.Fatalf("%s: usage --by %s: %+v, want one row of %s with %d tokens", when, by, sum.Rows, id, want.Total)
			}
		}
		table := h.operator("usage")
		if table.code != 0 || !strings.Contains(table.stdout, id) || !strings.Contains(table.stdout, "1300") {
			t.Fatalf("%s: the usage table:\n%s", when, table)
		}
	}
	check("running")
	h.restart(syscall.SIGKILL)
	check("after serve was killed")
}
