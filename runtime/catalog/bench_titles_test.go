package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// BenchmarkTitles10k compares a title search over every thread of the benchmark home made by
// the raw App Server (paging it with useStateDbOnly, with and without its start) with the
// title index: a runtime just started with the index file present (its first answer, and the
// exact one after the full read).
func BenchmarkTitles10k(b *testing.B) {
	home := os.Getenv("CODEXHOST_BENCH_HOME")
	if home == "" {
		b.Skip("set CODEXHOST_BENCH_HOME to a home made by TestBuildBenchHome")
	}
	bin := codextest.CodexBin(b)
	ctx := context.Background()
	start := func() *appserver.Client {
		c, err := appserver.Start(ctx, appserver.Config{Bin: bin, Env: codextest.Env(home), Dir: home})
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	rawSearch := func(c *appserver.Client) int {
		pager := appserver.NewThreadPager[ListedThread](c, appserver.ThreadListParams{Limit: NativePageSize, UseStateDBOnly: true})
		n := 0
		for !pager.Done() {
			data, err := pager.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for _, t := range data {
				if t.Name != nil && strings.Contains(fold(*t.Name), "needle") {
					n++
				}
			}
		}
		return n
	}
	c := start()
	defer c.Close()
	rawSearch(c) // the App Server's first list opens its state database
	b.Run("raw_search_all_statedb", func(b *testing.B) {
		var n int
		for b.Loop() {
			n = rawSearch(c)
		}
		b.ReportMetric(float64(n), "matches")
	})
	// What any one-shot command that needs the App Server pays before its first request.
	b.Run("raw_start_only", func(b *testing.B) {
		for b.Loop() {
			_ = start().Close()
		}
	})
	b.Run("raw_start_and_search_all", func(b *testing.B) {
		for b.Loop() {
			c := start()
			rawSearch(c)
			_ = c.Close()
		}
	})
	dir := b.TempDir()
	spec := []HostSpec{{ID: LocalHostID, Default: true, Source: SourceFunc(func(context.Context) (Conn, error) { return c, nil })}}
	build, _ := New(spec, Options{IndexDir: dir})
	build.Warm()
	if !build.waitExact(ctx, build.byID[LocalHostID]) {
		b.Fatal("the index did not become exact")
	}
	_ = build.Close()
	if fi, err := os.Stat(titlesPath(dir, LocalHostID)); err == nil {
		b.Logf("index file: %d bytes", fi.Size())
	}
	p := api.CatalogSessionsParams{Host: LocalHostID, Limit: 50, Search: "needle"}
	b.Run("index_runtime_started_first_answer", func(b *testing.B) {
		var matches int
		for b.Loop() {
			cat, _ := New(spec, Options{IndexDir: dir})
			cat.Warm()
			res, err := cat.List(ctx, p, nil)
			if err != nil || res.Hosts[0].Error != nil || res.Hosts[0].NextCursor != "" {
				b.Fatal(err, res.Hosts[0].Error)
			}
			matches = len(res.Hosts[0].Sessions)
			b.StopTimer()
			_ = cat.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(matches), "matches")
	})
	b.Run("index_runtime_started_exact", func(b *testing.B) {
		for b.Loop() {
			cat, _ := New(spec, Options{IndexDir: dir})
			cat.Warm()
			var last api.CatalogHostSessions
			_, err := cat.List(ctx, api.CatalogSessionsParams{Host: LocalHostID, Limit: 50, Search: "needle", Progress: true},
				func(h api.CatalogHostSessions) { last = h })
			if err != nil || last.Revalidating {
				b.Fatal(err, last.Revalidating)
			}
			b.StopTimer()
			_ = cat.Close()
			b.StartTimer()
		}
	})
	b.Run("index_load_file", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := readTitlesFile(filepath.Join(titlesPath(dir, LocalHostID))); err != nil {
				b.Fatal(err)
			}
		}
	})
}
