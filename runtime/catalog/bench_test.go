package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// The catalog benchmark runs on a large Codex home built once by bench/catalog-10k.sh:
//
//	CODEXHOST_BENCH_BUILD=DIR CODEXHOST_BENCH_THREADS=10000 go test -run TestBuildBenchHome ./runtime/catalog/
//	CODEXHOST_BENCH_HOME=DIR go test -run '^$' -bench BenchmarkCatalog10k ./runtime/catalog/
//
// Every thread is made by the App Server itself (thread/fork of a stored thread with one
// turn, persisted, then named), so it is listed exactly as a thread made by a client is.

// benchNeedleEvery names every n-th thread with the search needle.
const benchNeedleEvery = 1000

func benchName(i int) string {
	if i%benchNeedleEvery == 0 {
		return fmt.Sprintf("bench thread %05d with the NEEDLE", i)
	}
	return fmt.Sprintf("bench thread %05d", i)
}

func TestBuildBenchHome(t *testing.T) {
	dir := os.Getenv("CODEXHOST_BENCH_BUILD")
	if dir == "" {
		t.Skip("set CODEXHOST_BENCH_BUILD=DIR to build a benchmark Codex home there")
	}
	n, _ := strconv.Atoi(os.Getenv("CODEXHOST_BENCH_THREADS"))
	if n <= 0 {
		n = 10000
	}
	workers, _ := strconv.Atoi(os.Getenv("CODEXHOST_BENCH_WORKERS"))
	if workers <= 0 {
		workers = 8
	}
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	tmpl := codextest.NewHome(t, fake.URL(), codextest.WithThreadUnloadDelay(time.Second))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(tmpl, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := appserver.Start(ctx, appserver.Config{Bin: bin, Env: codextest.Env(dir), Dir: dir, StderrLog: filepath.Join(t.TempDir(), "as.log")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	var have appserver.ThreadListResult
	if err := c.Call(ctx, "thread/list", map[string]any{"limit": 1, "useStateDbOnly": true}, &have); err != nil {
		t.Fatal(err)
	}
	e := &realEnv{t: t, bin: bin, fake: fake}
	seed := e.thread(c, benchName(0), "the seed thread of the benchmark")
	start := time.Now()
	var next, made atomic.Int64
	next.Store(1)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				res, err := c.ThreadFork(ctx, appserver.ThreadForkParams{ThreadID: seed, ExcludeTurns: true})
				if err == nil {
					err = c.Call(ctx, "thread/name/set", map[string]any{"threadId": res.Thread.ID, "name": benchName(i)}, nil)
				}
				if err == nil {
					_, err = c.ThreadUnsubscribe(ctx, res.Thread.ID)
				}
				if err != nil {
					errs <- err
					return
				}
				if m := made.Add(1); m%1000 == 0 {
					t.Logf("%d threads in %s", m, time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("built %d threads in %s", made.Load()+1, time.Since(start).Round(time.Millisecond))
}

// BenchmarkCatalog10k compares one raw thread/list call with the catalog's cold and warm
// lists and a title search over the whole home.
func BenchmarkCatalog10k(b *testing.B) {
	home := os.Getenv("CODEXHOST_BENCH_HOME")
	if home == "" {
		b.Skip("set CODEXHOST_BENCH_HOME to a home made by TestBuildBenchHome")
	}
	bin := codextest.CodexBin(b)
	ctx := context.Background()
	c, err := appserver.Start(ctx, appserver.Config{Bin: bin, Env: codextest.Env(home), Dir: home})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	src := SourceFunc(func(context.Context) (Conn, error) { return c, nil })
	spec := []HostSpec{{ID: LocalHostID, Default: true, Source: src}}
	page := api.CatalogSessionsParams{Host: LocalHostID, Limit: 50}
	// One untimed call: the App Server's first list also opens its state database.
	_ = c.Call(ctx, "thread/list", map[string]any{"limit": 50, "useStateDbOnly": true}, &appserver.ThreadListResult{})

	b.Run("raw_thread_list_50_scan", func(b *testing.B) {
		for b.Loop() {
			var r appserver.ThreadListResult
			if err := c.Call(ctx, "thread/list", map[string]any{"limit": 50}, &r); err != nil || len(r.Data) != 50 {
				b.Fatal(err, len(r.Data))
			}
		}
	})
	// One native page of a title scan: 100 rows, the App Server's cap, walking the cursor
	// chain so that deep pages count as much as the newest.
	b.Run("raw_thread_list_100_page", func(b *testing.B) {
		cursor := ""
		for b.Loop() {
			var r appserver.ThreadListResult
			p := map[string]any{"limit": NativePageSize, "useStateDbOnly": true}
			if cursor != "" {
				p["cursor"] = cursor
			}
			if err := c.Call(ctx, "thread/list", p, &r); err != nil || len(r.Data) == 0 {
				b.Fatal(err, len(r.Data))
			}
			cursor = ""
			if r.NextCursor != nil {
				cursor = *r.NextCursor
			}
		}
	})
	b.Run("raw_thread_list_50_statedb", func(b *testing.B) {
		for b.Loop() {
			var r appserver.ThreadListResult
			if err := c.Call(ctx, "thread/list", map[string]any{"limit": 50, "useStateDbOnly": true}, &r); err != nil || len(r.Data) != 50 {
				b.Fatal(err, len(r.Data))
			}
		}
	})
	// Read-ahead is off where it would load the App Server during the measurement.
	b.Run("sessions_50_cold", func(b *testing.B) {
		for b.Loop() {
			cat, _ := New(spec, Options{ReadAheadPages: -1})
			benchList(b, cat, page, 50)
		}
	})
	b.Run("sessions_50_warm", func(b *testing.B) {
		cat, _ := New(spec, Options{IndexTTL: time.Hour, ReadAheadPages: -1})
		benchList(b, cat, page, 50)
		for b.Loop() {
			benchList(b, cat, page, 50)
		}
	})
	search := func(b *testing.B, cat *Catalog) (matches, calls int) {
		p := api.CatalogSessionsParams{Host: LocalHostID, Limit: 50, Search: "needle"}
		for {
			res, err := cat.List(ctx, p, nil)
			if err != nil || res.Hosts[0].Error != nil {
				b.Fatal(err, res.Hosts[0].Error)
			}
			calls++
			matches += len(res.Hosts[0].Sessions)
			if p.Cursor = res.Hosts[0].NextCursor; p.Cursor == "" {
				return matches, calls
			}
		}
	}
	var coldMatches, coldCalls int
	// Truly cold: an empty index and nothing read ahead, so every native page is read in the
	// measured calls. The App Server's page time bounds it (raw_thread_list_100_page × pages).
	b.Run("search_all_cold", func(b *testing.B) {
		for b.Loop() {
			cat, _ := New(spec, Options{ReadAheadPages: -1})
			coldMatches, coldCalls = search(b, cat)
		}
		b.ReportMetric(float64(coldCalls), "calls/op")
		b.ReportMetric(float64(coldMatches), "matches")
	})
	// The operator's usual order: a list, then a search once the list's read-ahead is done.
	b.Run("search_all_after_list", func(b *testing.B) {
		var m, n int
		for b.Loop() {
			b.StopTimer()
			cat, _ := New(spec, Options{ReadAheadPages: 1000})
			benchList(b, cat, page, 50)
			for cat.byID[LocalHostID].ahead.Load() {
				time.Sleep(time.Millisecond)
			}
			b.StartTimer()
			m, n = search(b, cat)
		}
		b.ReportMetric(float64(n), "calls/op")
		b.ReportMetric(float64(m), "matches")
	})
	// The first search of a runtime that started this instant: it meets the start's read-ahead
	// (Warm) and waits for the pages it needs instead of reading them a second time.
	b.Run("search_all_runtime_starting", func(b *testing.B) {
		var m, n int
		for b.Loop() {
			cat, _ := New(spec, Options{})
			cat.Warm()
			m, n = search(b, cat)
			b.StopTimer()
			_ = cat.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(n), "calls/op")
		b.ReportMetric(float64(m), "matches")
	})
	// The first search of a runtime that has been up a moment: its start's read-ahead is done.
	b.Run("search_all_runtime_running", func(b *testing.B) {
		var m, n int
		for b.Loop() {
			b.StopTimer()
			cat, _ := New(spec, Options{})
			cat.Warm()
			for cat.byID[LocalHostID].ahead.Load() {
				time.Sleep(time.Millisecond)
			}
			b.StartTimer()
			m, n = search(b, cat)
			b.StopTimer()
			_ = cat.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(n), "calls/op")
		b.ReportMetric(float64(m), "matches")
	})
	b.Run("search_all_warm", func(b *testing.B) {
		cat, _ := New(spec, Options{IndexTTL: time.Hour, ReadAheadPages: -1})
		search(b, cat)
		var m, n int
		for b.Loop() {
			m, n = search(b, cat)
		}
		b.ReportMetric(float64(n), "calls/op")
		b.ReportMetric(float64(m), "matches")
	})
}

func benchList(b *testing.B, cat *Catalog, p api.CatalogSessionsParams, want int) {
	res, err := cat.List(context.Background(), p, nil)
	if err != nil || res.Hosts[0].Error != nil || len(res.Hosts[0].Sessions) != want {
		b.Fatal(err, res.Hosts[0].Error, len(res.Hosts[0].Sessions))
	}
}
