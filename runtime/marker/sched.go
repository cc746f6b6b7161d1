package marker

import (
	"container/heap"
	"context"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
)

// The scheduler serves every pending poll and wait from one loop. A read holds a slot only
// while it reads a round; between rounds it sleeps in a deadline heap, and an event of one of
// its targets moves it to the ready queue at once. Ready reads take the free slots round robin
// across principals, each principal holding at most perPrincipal of them, so a principal with
// a thousand waits pending cannot keep another's immediate poll waiting.

type jobState int

const (
	jobSleeping jobState = iota // in the heap until due or woken
	jobReady                    // queued for a slot
	jobReading                  // a round is being read
	jobDone
)

// readJob is one poll or wait of a run, from its first round to its outcome.
type readJob struct {
	ctx       context.Context
	principal string
	author    Facts
	p         model.MarkerPending
	views     []ThreadView
	open      map[int]bool
	started   bool // the target gates ran
	state     jobState
	due       time.Time
	index     int  // in the heap, while sleeping
	woken     bool // a target's event came during its round: read again at once
	threads   []model.ThreadID
	done      chan Outcome
	stopWatch func() bool
}

func (j *readJob) outcome() Outcome {
	return Outcome{Seq: j.p.Seq, Info: j.p.Info, Tool: j.p.Tool, Decision: Accepted, Targets: j.p.Targets, Views: j.views}
}

type jobHeap []*readJob

func (h jobHeap) Len() int           { return len(h) }
func (h jobHeap) Less(i, k int) bool { return h[i].due.Before(h[k].due) }
func (h jobHeap) Swap(i, k int)      { h[i], h[k] = h[k], h[i]; h[i].index = i; h[k].index = k }
func (h *jobHeap) Push(x any)        { j := x.(*readJob); j.index = len(*h); *h = append(*h, j) }
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	j.index = -1
	return j
}

type scheduler struct {
	now          func() time.Time
	round        func(*readJob) bool // reads one round; true when the read is finished
	workers      int
	perPrincipal int

	mu       sync.Mutex
	sleeping jobHeap
	ready    map[string][]*readJob // by principal, oldest first
	ring     []string              // principals with ready reads, in turn order
	next     int                   // the ring position served next
	busy     map[string]int        // slots held by each principal
	inUse    int
	byThread map[model.ThreadID]map[*readJob]struct{}
	pending  int
	kick     chan struct{}
	start    sync.Once
	stopOnce sync.Once
	stop     chan struct{}
	wg       sync.WaitGroup
}

func newScheduler(now func() time.Time, workers, perPrincipal int, round func(*readJob) bool) *scheduler {
	if perPrincipal <= 0 || perPrincipal > workers {
		perPrincipal = max(1, (workers+1)/2)
	}
	return &scheduler{now: now, round: round, workers: workers, perPrincipal: perPrincipal,
		ready: map[string][]*readJob{}, busy: map[string]int{}, byThread: map[model.ThreadID]map[*readJob]struct{}{},
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
}

// submit queues a read: a once read sleeps until its deadline, any other reads at once.
func (s *scheduler) submit(ctx context.Context, principal string, author Facts, p model.MarkerPending) *readJob {
	s.start.Do(func() { s.wg.Add(1); go s.loop() })
	j := &readJob{ctx: ctx, principal: principal, author: author, p: p, views: make([]ThreadView, len(p.Targets)),
		open: map[int]bool{}, index: -1, done: make(chan Outcome, 1)}
	// Before it is queued: a round's end may finish the read at once.
	j.stopWatch = context.AfterFunc(ctx, func() { s.drop(j) })
	s.mu.Lock()
	s.pending++
	if p.Once {
		j.due = p.Deadline
		s.sleepLocked(j)
	} else {
		s.readyLocked(j)
	}
	s.dispatchLocked()
	s.mu.Unlock()
	s.poke()
	return j
}

func (s *scheduler) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// loop moves due reads to the ready queues. It rechecks the clock at least every
// onceRecheck: the clock is injected, so a timer of the whole sleep could outlast a clock
// moved ahead.
func (s *scheduler) loop() {
	defer s.wg.Done()
	for {
		s.mu.Lock()
		now := s.now()
		for len(s.sleeping) > 0 && !s.sleeping[0].due.After(now) {
			s.readyLocked(heap.Pop(&s.sleeping).(*readJob))
		}
		s.dispatchLocked()
		wait := onceRecheck
		if len(s.sleeping) > 0 {
			wait = min(wait, s.sleeping[0].due.Sub(now))
		}
		s.mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-s.kick:
		case <-t.C:
		}
		t.Stop()
	}
}

func (s *scheduler) sleepLocked(j *readJob) {
	j.state = jobSleeping
	heap.Push(&s.sleeping, j)
}

func (s *scheduler) readyLocked(j *readJob) {
	j.state = jobReady
	if len(s.ready[j.principal]) == 0 {
		s.ring = append(s.ring, j.principal)
	}
	s.ready[j.principal] = append(s.ready[j.principal], j)
}

// dispatchLocked gives free slots to ready reads, one principal after the other.
func (s *scheduler) dispatchLocked() {
	for s.inUse < s.workers && len(s.ring) > 0 {
		served := false
		for range len(s.ring) {
			if s.next >= len(s.ring) {
				s.next = 0
			}
			p := s.ring[s.next]
			if s.busy[p] >= s.perPrincipal {
				s.next++
				continue
			}
			j := s.takeLocked(p)
			if j.ctx.Err() != nil {
				s.finishLocked(j)
				served = true
				break
			}
			j.state = jobReading
			s.inUse++
			s.busy[p]++
			s.wg.Add(1)
			go s.read(j)
			served = true
			break
		}
		if !served {
			return // every principal with ready reads holds its share
		}
	}
}

// takeLocked pops the oldest ready read of principal p and moves the turn to the next one.
func (s *scheduler) takeLocked(p string) *readJob {
	q := s.ready[p]
	j := q[0]
	q[0] = nil
	if q = q[1:]; len(q) == 0 {
		delete(s.ready, p)
		s.ring = append(s.ring[:s.next], s.ring[s.next+1:]...)
	} else {
		s.ready[p] = q
		s.next++
	}
	return j
}

func (s *scheduler) read(j *readJob) {
	defer s.wg.Done()
	finished := s.round(j)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inUse--
	s.busy[j.principal]--
	if s.busy[j.principal] == 0 {
		delete(s.busy, j.principal)
	}
	switch {
	case finished || j.ctx.Err() != nil:
		s.finishLocked(j)
	case j.woken:
		j.woken = false
		s.readyLocked(j)
	default:
		j.due = s.now().Add(min(j.p.Deadline.Sub(s.now()), j.p.Interval))
		s.sleepLocked(j)
		s.poke()
	}
	s.dispatchLocked()
}

// finishLocked ends a read: it hears no more events and hands its outcome over.
func (s *scheduler) finishLocked(j *readJob) {
	if j.state == jobDone {
		return
	}
	j.state = jobDone
	s.pending--
	s.forgetLocked(j, j.threads)
	j.threads = nil
	if j.ctx.Err() == nil {
		j.done <- j.outcome()
	}
	j.stopWatch()
}

// drop takes a read whose run ended out of the heap and the queues.
func (s *scheduler) drop(j *readJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch j.state {
	case jobSleeping:
		heap.Remove(&s.sleeping, j.index)
	case jobReady:
		q := s.ready[j.principal]
		for i, r := range q {
			if r == j {
				s.ready[j.principal] = append(q[:i], q[i+1:]...)
				break
			}
		}
		if len(s.ready[j.principal]) == 0 {
			delete(s.ready, j.principal)
			for i, p := range s.ring {
				if p == j.principal {
					s.ring = append(s.ring[:i], s.ring[i+1:]...)
					break
				}
			}
		}
	case jobReading, jobDone:
		return // the round's end finishes it
	}
	s.finishLocked(j)
}

// listen makes events of threads wake the read; registered before its first round, so no
// event between a round and the sleep after it is missed.
func (s *scheduler) listen(j *readJob, threads []model.ThreadID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range threads {
		set := s.byThread[id]
		if set == nil {
			set = map[*readJob]struct{}{}
			s.byThread[id] = set
		}
		if _, dup := set[j]; !dup {
			set[j] = struct{}{}
			j.threads = append(j.threads, id)
		}
	}
}

// listened lists the threads whose events the read hears.
func (s *scheduler) listened(j *readJob) []model.ThreadID {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.ThreadID(nil), j.threads...)
}

// forget stops the read hearing events of threads (settled targets).
func (s *scheduler) forget(j *readJob, threads []model.ThreadID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(j, threads)
	keep := j.threads[:0]
	for _, id := range j.threads {
		if _, still := s.byThread[id][j]; still {
			keep = append(keep, id)
		}
	}
	j.threads = keep
}

func (s *scheduler) forgetLocked(j *readJob, threads []model.ThreadID) {
	for _, id := range threads {
		delete(s.byThread[id], j)
		if len(s.byThread[id]) == 0 {
			delete(s.byThread, id)
		}
	}
}

// wake reads the thread's listeners again: a sleeping one at once, one reading after its
// round. Events of other threads never reach them.
func (s *scheduler) wake(thread model.ThreadID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for j := range s.byThread[thread] {
		switch j.state {
		case jobSleeping:
			heap.Remove(&s.sleeping, j.index)
			s.readyLocked(j)
		case jobReading:
			j.woken = true
		}
	}
	s.dispatchLocked()
}

// listening counts the reads hearing a thread's events.
func (s *scheduler) listening(id model.ThreadID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byThread[id])
}

// pendingReads counts the reads not finished.
func (s *scheduler) pendingReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending
}

// close stops the loop once every read has ended (their runs are cancelled first).
func (s *scheduler) close() {
	s.stopOnce.Do(func() { close(s.stop) })
	s.wg.Wait()
}
