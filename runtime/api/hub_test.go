package api

import (
	"context"
	"testing"
	"time"
)

// A subscriber gets every event published while it is subscribed, and none once its
// context ended.
func TestHubSubscribeUntilContextEnds(t *testing.T) {
	t.Parallel()
	var hub Hub
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 4)
	hub.Subscribe(ctx, func(ev Event) { got <- ev.Thread })
	hub.Publish(Event{Thread: "a"})
	if th := <-got; th != "a" {
		t.Fatalf("got %q, want a", th)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		hub.mu.Lock()
		n := len(hub.subs)
		hub.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscriber is still registered after its context ended")
		}
		time.Sleep(time.Millisecond)
	}
	hub.Publish(Event{Thread: "b"})
	select {
	case th := <-got:
		t.Fatalf("got %q after the context ended", th)
	default:
	}
}
