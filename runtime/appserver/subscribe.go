package appserver

import "sync"

// subscriber keeps its own queue so that a slow consumer never stalls the reader or other
// subscribers.
type subscriber struct {
	mu      sync.Mutex
	queue   []Notification
	dropped int64
	closed  bool
	wake    chan struct{} // buffered 1: "the queue has items"
	quit    chan struct{}
	out     chan Notification
	filter  func(method string) bool
}

// Subscribe returns a channel of notifications (and unanswered server requests) matching
// filter (nil = all), and a function that ends the subscription and closes the channel.
func (c *Client) Subscribe(filter func(method string) bool) (<-chan Notification, func()) {
	s := &subscriber{wake: make(chan struct{}, 1), quit: make(chan struct{}), out: make(chan Notification), filter: filter}
	c.subMu.Lock()
	c.subs[s] = struct{}{}
	c.subMu.Unlock()
	go s.pump()
	var once sync.Once
	return s.out, func() {
		once.Do(func() {
			c.subMu.Lock()
			delete(c.subs, s)
			c.subMu.Unlock()
			s.close()
		})
	}
}

// Dropped reports how many notifications all current subscribers lost to overflow.
func (c *Client) Dropped() int64 {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	var n int64
	for s := range c.subs {
		s.mu.Lock()
		n += s.dropped
		s.mu.Unlock()
	}
	return n
}

func (c *Client) publish(n Notification) {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	for s := range c.subs {
		if s.filter != nil && !s.filter(n.Method) {
			continue
		}
		s.push(n)
	}
}

func (s *subscriber) push(n Notification) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= subscriberQueue {
		s.queue = s.queue[1:]
		s.dropped++
	}
	s.queue = append(s.queue, n)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.queue = nil
		close(s.quit)
	}
	s.mu.Unlock()
}

func (s *subscriber) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		if len(s.queue) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-s.quit:
				return
			}
			continue
		}
		n := s.queue[0]
		s.queue[0] = Notification{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		select {
		case s.out <- n:
		case <-s.quit:
			return
		}
	}
}
