// Package keylock serialises work per key without one global lock: holders of one key take
// turns while other keys go on at once, and a key nobody holds or waits for is forgotten.
package keylock

import "sync"

// Locks is a set of per-key locks; the zero value is ready to use.
type Locks struct {
	mu   sync.Mutex
	held map[string]*entry
}

type entry struct {
	mu   sync.Mutex
	refs int // holders and waiters
}

// Lock takes the lock of key, waiting while another holder has it, and returns its unlock.
func (l *Locks) Lock(key string) (unlock func()) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]*entry{}
	}
	e := l.held[key]
	if e == nil {
		e = &entry{}
		l.held[key] = e
	}
	e.refs++
	l.mu.Unlock()
	e.mu.Lock()
	return func() {
		e.mu.Unlock()
		l.mu.Lock()
		if e.refs--; e.refs == 0 {
			delete(l.held, key)
		}
		l.mu.Unlock()
	}
}

// keys counts the keys held or waited for.
func (l *Locks) keys() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}
