package marker

import (
	"slices"

	"github.com/codexhost/codexhost/model"
)

// waiter is one poll or wait listening for events of its open targets. A thread event of a
// target leaves a token in wake; tokens do not pile up, since one read round sees every
// change that came before it.
type waiter struct {
	wake    chan struct{}
	threads []model.ThreadID
}

func (w *waiter) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// listen registers a waiter for events of targets; events of other threads never reach it.
// It is registered before the first read round, so no event between a round and the wait
// after it is missed.
func (e *Engine) listen(targets []string) *waiter {
	w := &waiter{wake: make(chan struct{}, 1)}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, t := range targets {
		id := model.ThreadID(t)
		set := e.waiters[id]
		if set == nil {
			set = map[*waiter]struct{}{}
			e.waiters[id] = set
		}
		if _, dup := set[w]; !dup {
			set[w] = struct{}{}
			w.threads = append(w.threads, id)
		}
	}
	return w
}

// forget stops a waiter listening to the threads given, or to all of its threads. Only the
// waiter's own read calls it, so w.threads needs no lock.
func (e *Engine) forget(w *waiter, threads ...model.ThreadID) {
	all := threads == nil
	if all {
		threads = w.threads
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, id := range threads {
		delete(e.waiters[id], w)
		if len(e.waiters[id]) == 0 {
			delete(e.waiters, id)
		}
	}
	if all {
		w.threads = nil
		return
	}
	w.threads = slices.DeleteFunc(w.threads, func(id model.ThreadID) bool { return slices.Contains(threads, id) })
}

// listening counts the reads listening to a thread's events.
func (e *Engine) listening(id model.ThreadID) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.waiters[id])
}
