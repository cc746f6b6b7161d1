package ui

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssGoalMB is the most resident memory the app may take with the big fixture loaded.
const rssGoalMB = 80

// procStatusKB reads a "Name:  N kB" line of /proc/self/status.
func procStatusKB(tb testing.TB, name string) float64 {
	tb.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			if err != nil {
				tb.Fatalf("%s: %v", name, err)
			}
			return kb
		}
	}
	tb.Fatalf("no %s in /proc/self/status", name)
	return 0
}

// BenchmarkRSSWith10kRowsAnd2kLineageNodes loads 10,000 catalog rows and a 2,000-node lineage,
// renders every pane, and reports the process's resident memory (rss-MB now, hwm-MB at its
// peak) and the Go heap in use. Run it alone, so nothing else has grown the process:
//
//	go test -run '^$' -bench RSS -benchtime 1x ./ui/
func BenchmarkRSSWith10kRowsAnd2kLineageNodes(b *testing.B) {
	var apps []*testApp
	for range b.N {
		a := bigApp(b)
		if v := a.View(); !strings.Contains(v, "gateway:local") || !strings.Contains(v, "· 10000") {
			b.Fatalf("the fleet does not hold the 10,000 rows:\n%s", v)
		}
		a.press(a.km.Global.Lineage)
		if v := a.View(); !strings.Contains(v, "Lineage · 2000 threads") {
			b.Fatalf("the lineage pane does not show the 2,000 nodes:\n%s", v)
		}
		if got := len(a.lineage.lin.Nodes); got != 2000 {
			b.Fatalf("the lineage holds %d nodes", got)
		}
		apps = append(apps, a)
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, hwm := procStatusKB(b, "VmRSS")/1024, procStatusKB(b, "VmHWM")/1024
	b.ReportMetric(rss, "rss-MB")
	b.ReportMetric(hwm, "hwm-MB")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20)/float64(len(apps)), "heap-inuse-MB/app")
	if len(apps) == 1 && rss > rssGoalMB {
		b.Errorf("RSS %.1f MB with one app loaded, goal under %d MB", rss, rssGoalMB)
	}
	runtime.KeepAlive(apps)
}
