package marker

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

const (
	wakeAuthor = "019a0000-0000-7000-8000-0000000000a0"
	wakeTarget = "019a0000-0000-7000-8000-0000000000b0"
	wakeOther  = "019a0000-0000-7000-8000-0000000000c0"
)

func TestAReadHearsOnlyItsOwnTargets(t *testing.T) {
	t.Parallel()
	s := newScheduler(time.Now, 1, 1, func(*readJob) bool { return false })
	j := &readJob{index: -1, state: jobReading}
	s.listen(j, []model.ThreadID{wakeTarget, wakeTarget, wakeOther})
	if len(j.threads) != 2 || s.listening(wakeTarget) != 1 || s.listening(wakeOther) != 1 {
		t.Fatalf("threads %v", j.threads)
	}
	s.wake(wakeAuthor)
	if j.woken {
		t.Fatal("an event of another thread woke the read")
	}
	s.wake(wakeTarget)
	s.wake(wakeTarget) // two events, one more round: it sees both
	if !j.woken {
		t.Fatal("the target's event did not wake the read")
	}
	j.woken = false
	s.forget(j, []model.ThreadID{wakeOther})
	s.wake(wakeOther)
	if j.woken || len(j.threads) != 1 {
		t.Fatalf("a forgotten thread woke the read (threads %v)", j.threads)
	}
	s.forget(j, []model.ThreadID{wakeTarget})
	if s.listening(wakeTarget) != 0 || len(s.byThread) != 0 {
		t.Fatalf("listeners left: %v", s.byThread)
	}
}

// wakeThreads is the engine's view of three threads in one project. The target runs until
// stop; each View of it is announced on viewed and returns once release lets it.
type wakeThreads struct {
	mu      sync.Mutex
	running bool
	views   int
	viewed  chan int
	release chan struct{}
}

func (w *wakeThreads) Facts(_ context.Context, id string) (Facts, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Facts{ID: id, Project: "/p", Principal: "operator", Running: id == wakeTarget && w.running}, nil
}

func (w *wakeThreads) View(ctx context.Context, id string, _ int) (ThreadView, bool, error) {
	if id != wakeTarget {
		return ThreadView{ID: id, Status: model.ThreadIdle}, false, nil
	}
	w.mu.Lock()
	w.views++
	n := w.views
	w.mu.Unlock()
	w.viewed <- n
	select {
	case <-w.release:
	case <-ctx.Done(): // the engine closes when a test fails
		return ThreadView{}, false, ctx.Err()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return ThreadView{ID: id, Status: model.ThreadIdle}, w.running, nil
}

func (w *wakeThreads) stop() { w.mu.Lock(); w.running = false; w.mu.Unlock() }

func (w *wakeThreads) Create(context.Context, Facts, Create) (Created, error) { return Created{}, nil }
func (w *wakeThreads) Cancel(context.Context, string) (string, error)         { return "", nil }
func (w *wakeThreads) Retry(context.Context, string) (string, error)          { return "", nil }
func (w *wakeThreads) Permission(string, Tool) Permission                     { return Permission{Allowed: true} }
func (w *wakeThreads) ActiveThreads(context.Context, string) (int, error)     { return 0, nil }

// memStore keeps runs in memory.
type memStore struct {
	mu   sync.Mutex
	runs map[string]model.MarkerRun
}

func (s *memStore) PutMarkerAudits([]model.MarkerAudit) error { return nil }
func (s *memStore) PutMarkerChild(model.MarkerChild) error    { return nil }
func (s *memStore) MarkerChild(model.ThreadID) (model.MarkerChild, error) {
	return model.MarkerChild{}, model.Errorf(model.CodeThreadNotFound, "", "none")
}
func (s *memStore) MarkerChildren(model.ThreadID) (int, error) { return 0, nil }
func (s *memStore) PutMarkerRun(r model.MarkerRun) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[r.ID] = r
	return nil
}
func (s *memStore) MarkerRuns(fn func(model.MarkerRun) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// woken counts the reads hearing a thread whose next thing after their round is another.
func (e *Engine) woken(id model.ThreadID) int {
	e.sched.mu.Lock()
	defer e.sched.mu.Unlock()
	n := 0
	for j := range e.sched.byThread[id] {
		if j.woken || j.state == jobReady {
			n++
		}
	}
	return n
}

// Scenario: S002-05 — a wait reads its targets again on their own events only: events of
// other threads (the author's, any other's) start no read round.
func TestS002_05_AWaitWakesOnlyForItsTargetsEvents(t *testing.T) {
	t.Parallel()
	threads := &wakeThreads{running: true, viewed: make(chan int, 16), release: make(chan struct{})}
	reports := make(chan string, 1)
	e := New(Options{Threads: threads, Store: &memStore{runs: map[string]model.MarkerRun{}},
		Deliver: func(_ model.MarkerRun, text string) error { reports <- text; return nil }})
	defer e.Close()
	// The interval is the longest there is and the deadline an hour away: within this test
	// only a wake token can start a second round.
	e.TurnCompleted(wakeAuthor, "turn-1", "```wait-threads\n{\"task_ids\":[\""+wakeTarget+"\"],\"interval_seconds\":60,\"timeout_seconds\":3600}\n```\n")
	if n := <-threads.viewed; n != 1 {
		t.Fatalf("first round: view %d", n)
	}
	// The first round is still reading: every event from here on is one the wait must hear
	// of or ignore once the round is over.
	for range 100 {
		e.OnEvent(wakeOther, model.TurnCompleted)
		e.OnEvent(wakeAuthor, "")
	}
	if n := e.woken(wakeTarget); n != 0 || e.sched.listening(wakeTarget) != 1 {
		t.Fatalf("events of other threads woke %d waits", n)
	}
	e.OnEvent(wakeTarget, "")
	if n := e.woken(wakeTarget); n != 1 {
		t.Fatalf("the target's event woke %d waits", n)
	}
	threads.release <- struct{}{} // round 1 ends with the target running; the token starts round 2
	if n := <-threads.viewed; n != 2 {
		t.Fatalf("second round: view %d", n)
	}
	threads.stop()
	threads.release <- struct{}{}
	<-reports
	if e.sched.listening(wakeTarget) != 0 {
		t.Fatal("the settled target is still listened to")
	}
}
