package marker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// The scheduler gives slots round robin across principals: with one slot and a hundred reads
// of principal A queued first, principal B's read is served after at most one more of A's
// (the one whose turn it was), not after all hundred.
func TestSlotsGoRoundRobinAcrossPrincipals(t *testing.T) {
	t.Parallel()
	served := make(chan string, 256)
	step, stop := make(chan struct{}), make(chan struct{})
	s := newScheduler(time.Now, 1, 1, func(j *readJob) bool {
		served <- j.principal
		select {
		case <-step:
		case <-stop:
		}
		return true
	})
	defer s.close()
	defer close(stop) // before close: the rounds left read at once
	ctx := context.Background()
	p := model.MarkerPending{Targets: []string{wakeTarget}, Deadline: time.Now().Add(time.Hour), Interval: time.Minute}
	for range 100 {
		s.submit(ctx, "A", Facts{}, p)
	}
	late := s.submit(ctx, "B", Facts{}, p)
	var order []string
	for range 3 {
		order = append(order, <-served)
		step <- struct{}{}
	}
	if !slices.Contains(order, "B") {
		t.Fatalf("served %v: B waits behind A's queue", order)
	}
	<-late.done
}

// Each principal holds at most its share of the slots, however many of its reads are ready:
// with four slots and a share of two, A's hundred reads never read more than two at once and
// leave two slots for B.
func TestAPrincipalHoldsAtMostItsShare(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	reading, most := map[string]int{}, map[string]int{}
	release := make(chan struct{})
	s := newScheduler(time.Now, 4, 2, func(j *readJob) bool {
		mu.Lock()
		reading[j.principal]++
		most[j.principal] = max(most[j.principal], reading[j.principal])
		mu.Unlock()
		<-release
		mu.Lock()
		reading[j.principal]--
		mu.Unlock()
		return true
	})
	defer s.close()
	ctx := context.Background()
	p := model.MarkerPending{Targets: []string{wakeTarget}, Deadline: time.Now().Add(time.Hour), Interval: time.Minute}
	var jobs []*readJob
	for range 100 {
		jobs = append(jobs, s.submit(ctx, "A", Facts{}, p))
	}
	for range 2 {
		jobs = append(jobs, s.submit(ctx, "B", Facts{}, p))
	}
	go func() {
		for range 102 {
			release <- struct{}{}
		}
	}()
	for _, j := range jobs {
		<-j.done
	}
	if most["A"] > 2 || most["B"] > 2 {
		t.Fatalf("most slots held at once: %v (share 2)", most)
	}
	if s.pendingReads() != 0 || s.inUse != 0 {
		t.Fatalf("%d pending, %d slots in use", s.pendingReads(), s.inUse)
	}
}

// pollThreads is the engine's view of a target that runs for ever; each View is counted.
type pollThreads struct {
	wakeThreads
	mu    sync.Mutex
	reads int
}

func (p *pollThreads) Facts(_ context.Context, id string) (Facts, error) {
	// One principal per author: the author ids end in the principal's number.
	principal := "operator"
	if strings.HasPrefix(id, "author-") {
		principal = "client:" + strings.Split(id, "-")[1]
	}
	return Facts{ID: id, Project: "/p", Principal: principal, Running: id == wakeTarget}, nil
}

func (p *pollThreads) View(context.Context, string, int) (ThreadView, bool, error) {
	p.mu.Lock()
	p.reads++
	p.mu.Unlock()
	return ThreadView{ID: wakeTarget, Status: model.ThreadActive}, true, nil
}

// Scenario: S002-04 (S002-05) — 1,000 waits of five principals pending on a thread that keeps
// running hold no slot while they sleep: another principal's task-poll with timeout 0 is
// reported while every one of them is still pending. The time is reported, not asserted.
func TestS002_04_ImmediatePollServedBesideAThousandWaits(t *testing.T) {
	t.Parallel()
	const want = 1000
	threads := &pollThreads{}
	reports := make(chan model.MarkerRun, want+1)
	e := New(Options{Threads: threads, Store: &memStore{runs: map[string]model.MarkerRun{}},
		Deliver: func(run model.MarkerRun, _ string) error { reports <- run; return nil }})
	defer e.Close()
	var waits strings.Builder
	for i := range 5 {
		fmt.Fprintf(&waits, "```task-poll\n{\"task_id\":%q,\"interval_seconds\":60,\"timeout_seconds\":3600,\"chars\":%d}\n```\n", wakeTarget, 200+i)
	}
	for a := range want / 5 {
		e.TurnCompleted(model.ThreadID(fmt.Sprintf("author-%d-%d", a%5, a)), "turn", waits.String())
	}
	eventuallyTrue(t, func() bool { return e.PendingReads() == want })
	start := time.Now()
	e.TurnCompleted("author-late-0", "turn", "```task-poll\n{\"task_id\":\""+wakeTarget+"\",\"timeout_seconds\":0}\n```\n")
	var got model.MarkerRun
	select {
	case got = <-reports:
	case <-time.After(30 * time.Second):
		t.Fatalf("no report of the immediate poll: it queued behind %d waits", e.PendingReads())
	}
	elapsed := time.Since(start)
	if got.Author != "author-late-0" {
		t.Fatalf("a report of %s came first", got.Author)
	}
	if n := e.PendingReads(); n != want {
		t.Fatalf("%d waits pending when the poll was reported, want %d", n, want)
	}
	threads.mu.Lock()
	defer threads.mu.Unlock()
	t.Logf("immediate task-poll reported after %v with %d waits pending (%d rounds read)", elapsed, want, threads.reads)
}

// BenchmarkImmediatePollBesideAThousandWaits reports how long an immediate task-poll of one
// principal takes from its turn's end to its report while five others keep 1,000 waits
// pending (ms/poll).
func BenchmarkImmediatePollBesideAThousandWaits(b *testing.B) {
	const want = 1000
	reports := make(chan model.MarkerRun, 16)
	e := New(Options{Threads: &pollThreads{}, Store: &memStore{runs: map[string]model.MarkerRun{}},
		Deliver: func(run model.MarkerRun, _ string) error { reports <- run; return nil }})
	defer e.Close()
	var waits strings.Builder
	for i := range 5 {
		fmt.Fprintf(&waits, "```task-poll\n{\"task_id\":%q,\"interval_seconds\":60,\"timeout_seconds\":3600,\"chars\":%d}\n```\n", wakeTarget, 200+i)
	}
	for a := range want / 5 {
		e.TurnCompleted(model.ThreadID(fmt.Sprintf("author-%d-%d", a%5, a)), "turn", waits.String())
	}
	for e.PendingReads() < want {
		time.Sleep(time.Millisecond)
	}
	poll := "```task-poll\n{\"task_id\":\"" + wakeTarget + "\",\"timeout_seconds\":0}\n```\n"
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		e.TurnCompleted(model.ThreadID(fmt.Sprintf("author-late-%d", i)), "turn", poll)
		<-reports
	}
	b.ReportMetric(time.Since(start).Seconds()*1000/float64(b.N), "ms/poll")
	if n := e.PendingReads(); n != want {
		b.Fatalf("%d waits pending, want %d", n, want)
	}
}
