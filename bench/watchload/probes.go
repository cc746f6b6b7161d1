package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/bench/serveproc"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// latency stops the threads one by one and times each notification: to the client's event
// log and to the recipient thread's transcript.
func (b *bench) latency(ctx context.Context, threads []string) error {
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := b.c.Events(sctx)
	if err != nil {
		return err
	}
	type arrival struct{ recorded, received time.Time }
	var mu sync.Mutex
	arrived := map[string]arrival{} // by thread id
	allArrived := make(chan struct{})
	want := map[string]bool{}
	for _, id := range threads {
		want[id] = true
	}
	go func() {
		cursor := ""
		if res, err := b.clientEvents(ctx, ""); err == nil && len(res) > 0 {
			cursor = res[len(res)-1].Cursor
		}
		for ev := range events {
			if ev.Type != api.EventClientLog {
				continue
			}
			got, err := b.clientEvents(ctx, cursor)
			if err != nil {
				fmt.Fprintln(os.Stderr, "client events:", err)
				return
			}
			now := time.Now()
			mu.Lock()
			for _, e := range got {
				cursor = e.Cursor
				if want[string(e.Thread)] {
					arrived[string(e.Thread)] = arrival{recorded: e.At, received: now}
				}
			}
			if len(arrived) == len(want) {
				close(allArrived)
				mu.Unlock()
				return
			}
			mu.Unlock()
		}
	}()

	stopped := map[string]time.Time{}
	for _, id := range threads {
		at, err := b.stopThread(id)
		if err != nil {
			return err
		}
		stopped[id] = at
		time.Sleep(*stopEveryFlag)
	}
	select {
	case <-allArrived:
	case <-time.After(2 * time.Minute):
		mu.Lock()
		n := len(arrived)
		mu.Unlock()
		return fmt.Errorf("only %d of %d client notifications arrived", n, len(threads))
	}
	if err := b.settle(ctx, 2*time.Minute); err != nil {
		return err
	}

	var toEvent, toReceived, endToEvent, toTurn []time.Duration
	for _, id := range threads {
		a := arrived[id]
		toEvent = append(toEvent, a.recorded.Sub(stopped[id]))
		toReceived = append(toReceived, a.received.Sub(stopped[id]))
		rd, err := api.ThreadRead.Call(ctx, b.c, api.ThreadReadParams{Thread: id})
		if err != nil {
			return err
		}
		if t := rd.Thread.LastTurn; t != nil && t.CompletedAt != nil {
			endToEvent = append(endToEvent, a.recorded.Sub(*t.CompletedAt))
		}
	}
	// Notification turns in the recipients' transcripts, by thread link.
	for _, r := range b.recipients {
		msgs, err := b.messages(ctx, r)
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Role != model.RoleUser || !strings.HasPrefix(m.Text, "codexhost watch notification") {
				continue
			}
			for _, line := range strings.Split(m.Text, "\n") {
				rest, ok := strings.CutPrefix(line, "- thread codex://threads/")
				if !ok {
					continue
				}
				id, _, _ := strings.Cut(rest, " ")
				if at, ok := stopped[id]; ok {
					toTurn = append(toTurn, m.At.Sub(at))
				}
			}
		}
	}
	fmt.Printf("latency over %d stops, one every %v, with %d active watches:\n", len(threads), *stopEveryFlag, 2**threadsFlag)
	fmt.Printf("  stop -> client event recorded:          %s\n", dist(toEvent))
	fmt.Printf("  stop -> client event received (follow): %s\n", dist(toReceived))
	fmt.Printf("  stop -> recipient notification turn:    %s\n", dist(toTurn))
	fmt.Printf("  turn end recorded -> client event:      %s\n", dist(endToEvent))
	return nil
}

// stopThread lets a gate thread's turn end.
func (b *bench) stopThread(id string) (time.Time, error) { return serveproc.OpenGate(b.fifos, id) }

func (b *bench) clientEvents(ctx context.Context, after string) ([]model.ClientEvent, error) {
	var all []model.ClientEvent
	for {
		res, err := api.ClientEvents.Call(ctx, b.c, api.ClientEventsParams{After: after, Limit: 100})
		if err != nil {
			return nil, err
		}
		all = append(all, res.Events...)
		if len(res.Events) < 100 {
			return all, nil
		}
		after = res.NextCursor
	}
}

func (b *bench) messages(ctx context.Context, id string) ([]model.Message, error) {
	var all []model.Message
	cursor := ""
	for {
		res, err := api.ThreadRead.Call(ctx, b.c, api.ThreadReadParams{Thread: id, View: model.ViewMessages, Limit: 100, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		all = append(res.Messages, all...)
		if res.NextCursor == "" {
			return all, nil
		}
		cursor = res.NextCursor
	}
}

// settle waits until no watch is pending (every stop so far delivered).
func (b *bench) settle(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		res, err := b.watches(ctx)
		if err != nil {
			return err
		}
		if len(res.Pending) == 0 {
			if len(res.Undeliverable) > 0 {
				return fmt.Errorf("%d undeliverable watches, first: %+v", len(res.Undeliverable), res.Undeliverable[0])
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d watches still pending after %v", len(res.Pending), timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// restart stops serve cleanly and times its return: listening, answering `thread watches`
// with every watch, and delivering the notifications the restart caused (the harness's turns
// end interrupted with the runtime that ran them).
func (b *bench) restart(ctx context.Context, want int) error {
	down := b.stop()
	t0 := time.Now()
	listen, err := b.start(ctx)
	if err != nil {
		return err
	}
	res, err := b.watches(ctx)
	if err != nil {
		return err
	}
	answered := time.Since(t0)
	listed := len(res.Watching) + len(res.Pending) + len(res.Undeliverable)
	fmt.Printf("restart with %d watches: shutdown %v; listening after %v; thread watches answered after %v listing %d (%d watching, %d pending)\n",
		want, down.Round(time.Millisecond), listen.Round(time.Millisecond), answered.Round(time.Millisecond), listed, len(res.Watching), len(res.Pending))
	if listed != want {
		fmt.Printf("  (%d not listed: already delivered)\n", want-listed)
	}
	for {
		res, err := b.watches(ctx)
		if err != nil {
			return err
		}
		if len(res.Watching) == 0 && len(res.Pending) == 0 {
			break
		}
		if time.Since(t0) > 10*time.Minute {
			return fmt.Errorf("restart notifications not delivered after 10 minutes: %d watching, %d pending", len(res.Watching), len(res.Pending))
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("  all %d interrupted-turn notifications delivered %v after the start\n", want, time.Since(t0).Round(time.Millisecond))
	fmt.Printf("rss after restart and delivery: %s\n", b.rss())
	return nil
}
