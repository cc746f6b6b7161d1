package api

import (
	"context"
	"sync"
)

// Hub fans a runtime's events out to its subscribers. The zero Hub is ready to use.
type Hub struct {
	mu   sync.Mutex
	subs map[int]func(Event)
	id   int
}

// Subscribe registers fn for every event published until ctx ends.
func (h *Hub) Subscribe(ctx context.Context, fn func(Event)) {
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[int]func(Event){}
	}
	h.id++
	id := h.id
	h.subs[id] = fn
	h.mu.Unlock()
	context.AfterFunc(ctx, func() { // no goroutine waits out each subscription
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	})
}

// Publish hands ev to every subscriber, outside the hub's lock.
func (h *Hub) Publish(ev Event) {
	h.mu.Lock()
	fns := make([]func(Event), 0, len(h.subs))
	for _, fn := range h.subs {
		fns = append(fns, fn)
	}
	h.mu.Unlock()
	for _, fn := range fns {
		fn(ev)
	}
}
