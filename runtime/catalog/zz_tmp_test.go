package catalog

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/codextest"
	"github.com/codexhost/codexhost/runtime/appserver"
)

func TestZZTiming(t *testing.T) {
	home := os.Getenv("CODEXHOST_BENCH_HOME")
	if home == "" {
		t.Skip()
	}
	bin := codextest.CodexBin(t)
	ctx := context.Background()
	c, err := appserver.Start(ctx, appserver.Config{Bin: bin, Env: codextest.Env(home), Dir: home})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for _, p := range []appserver.ThreadListParams{
			{Limit: 100, UseStateDBOnly: true},
			{Limit: 100, UseStateDBOnly: true, SortKey: "updated_at"},
			{Limit: 100, UseStateDBOnly: true, SourceKinds: []string{"vscode"}},
			{Limit: 50, UseStateDBOnly: true},
			{Limit: 1, UseStateDBOnly: true},
		} {
			t1 := time.Now()
			pager := appserver.NewThreadPager[ListedThread](c, p)
			n := 0
			for !pager.Done() && pager.Pages() < 20 {
				d, err := pager.Next(ctx)
				if err != nil {
					t.Fatal(err)
				}
				n += len(d)
			}
			t.Logf("%s %v %d: %d rows in %v: %v per 100 rows", p.SortKey, p.SourceKinds, p.Limit, n, time.Since(t1), time.Since(t1)*100/time.Duration(n))
		}
	}
}
