package watch

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// Every state change of a watch is told to OnChange, so that views of the watches follow
// them by event: here registered, then pending, delivering and finally undeliverable.
func TestOnChangeIsToldOfEveryWatchStateChange(t *testing.T) {
	t.Parallel()
	v := newTestEnv(t)
	var mu sync.Mutex
	var states []string
	e, err := Open(Options{Store: v.st, Read: v.reader.read, Send: v.sender.send, Now: v.clock.Now,
		OnChange: func(w model.Watch) {
			mu.Lock()
			defer mu.Unlock()
			states = append(states, w.State)
		}})
	if err != nil {
		t.Fatal(err)
	}
	v.e = e
	w, r := newID(), newID()
	v.reader.set(w, running("turn-1"))
	reg := v.register(w, string(r), time.Hour)
	v.sender.def = errors.New("harness did not confirm the start in time")
	v.reader.set(w, stopped("turn-1", model.TurnCompleted))
	v.e.OnEvent(w, model.ThreadIdle, model.TurnCompleted)
	v.e.Step(context.Background())
	v.want(reg.ID, model.WatchUndeliverable, model.ResultCompleted)
	mu.Lock()
	defer mu.Unlock()
	want := []string{model.WatchWatching, model.WatchPending, model.WatchDelivering, model.WatchUndeliverable}
	if !slices.Equal(states, want) {
		t.Fatalf("OnChange saw %v, want %v", states, want)
	}
}
