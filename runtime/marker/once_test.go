package marker

import (
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// clock is an injected clock that moves only when told.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// Scenario: S002-04 — task-read with wait_seconds waits that long and then reads once: the
// target's stop (its event) before then reads nothing, and the one read comes when the
// injected clock passes the deadline.
func TestS002_04_WaitSecondsReadsOnceAfterThatLong(t *testing.T) {
	t.Parallel()
	threads := &wakeThreads{running: false, viewed: make(chan int, 16), release: make(chan struct{}, 16)}
	reports := make(chan string, 1)
	clk := &clock{}
	clk.ns.Store(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	e := New(Options{Threads: threads, Store: &memStore{runs: map[string]model.MarkerRun{}}, Now: clk.Now,
		Deliver: func(_ model.MarkerRun, text string) error { reports <- text; return nil }})
	defer e.Close()
	e.TurnCompleted(wakeAuthor, "turn-1", "```task-read\n{\"task_id\":\""+wakeTarget+"\",\"wait_seconds\":20}\n```\n")
	e.OnEvent(wakeTarget, model.TurnCompleted) // the target stopped: a poll would read it now
	// Give a read that does not wait a few rechecks' time to happen.
	select {
	case n := <-threads.viewed:
		t.Fatalf("read %d before wait_seconds passed", n)
	case r := <-reports:
		t.Fatalf("reported before wait_seconds passed:\n%s", r)
	case <-time.After(3 * onceRecheck):
	}
	clk.Advance(19 * time.Second)
	select {
	case n := <-threads.viewed:
		t.Fatalf("read %d at 19 s", n)
	case <-time.After(2 * onceRecheck):
	}
	clk.Advance(time.Second)
	if n := <-threads.viewed; n != 1 {
		t.Fatalf("view %d", n)
	}
	threads.release <- struct{}{}
	r := <-reports
	if !strings.Contains(r, "1. task-read: accepted") || !strings.Contains(r, wakeTarget+": status idle") || strings.Contains(r, "timeout") {
		t.Fatalf("report:\n%s", r)
	}
	if threads.views != 1 {
		t.Fatalf("%d reads, want one", threads.views)
	}
}

// Scenario: S002-03 — the names of task-create blocks are in a report delivered after a
// restart, though no record holds them; their file goes once the report is queued.
func TestS002_03_NamesSurviveARestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store := &memStore{runs: map[string]model.MarkerRun{}}
	threads := &wakeThreads{running: true, viewed: make(chan int, 16), release: make(chan struct{}, 16)}
	opts := Options{Threads: threads, Store: store, NamesDir: dir,
		Deliver: func(model.MarkerRun, string) error { t.Error("reported before the restart"); return nil }}
	e := New(opts)
	e.TurnCompleted(wakeAuthor, "turn-1", "```task-create\n{\"name\":\"build-the-docs\",\"prompt\":\"p\"}\n```\n"+
		"```wait-threads\n{\"task_ids\":[\""+wakeTarget+"\"],\"timeout_seconds\":3600}\n```\n")
	<-threads.viewed // the run is saved and its wait reading
	threads.release <- struct{}{}
	e.Close()
	// The runs as a store keeps them: their JSON, which holds no name.
	for id, r := range store.runs {
		raw, err := json.Marshal(r)
		if err != nil || strings.Contains(string(raw), "build-the-docs") {
			t.Fatalf("a name in the record: %s %v", raw, err)
		}
		var back model.MarkerRun
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		store.runs[id] = back
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 1 {
		t.Fatalf("names files %v", files)
	}
	if info, err := files[0].Info(); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("names file mode %v %v", info.Mode(), err)
	}

	reports := make(chan string, 1)
	opts.Deliver = func(_ model.MarkerRun, text string) error { reports <- text; return nil }
	threads.stop()
	e = New(opts)
	defer e.Close()
	if err := e.Resume(); err != nil {
		t.Fatal(err)
	}
	<-threads.viewed
	threads.release <- struct{}{}
	r := <-reports
	if !strings.Contains(r, `1. task-create "build-the-docs": accepted`) {
		t.Fatalf("report after the restart lacks the name:\n%s", r)
	}
	eventuallyTrue(t, func() bool { files, _ := os.ReadDir(dir); return len(files) == 0 })
}

func eventuallyTrue(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
