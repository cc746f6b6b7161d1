// Command markerload measures marker blocks on a real `codexhost serve` with external shell
// harnesses: turn completed → created thread running (next to delegate start → thread
// running), target stopped → wait report delivered (next to the watch notification of the
// same stop), and the runtime's idle CPU with many waits running.
//
// Times are the runtime's own records where there are any (the end of the author's turn,
// the created thread's first turn, the report turn), and the bench's clock for the moments
// it causes (a delegate start, a target's stop); both are the same machine's wall clock.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

var (
	binFlag      = flag.String("bin", "", "codexhost binary (required)")
	createsFlag  = flag.Int("creates", 40, "task-create samples, one after another")
	waitsFlag    = flag.Int("waits", 100, "waits running at once, each on a thread of its own")
	idleFlag     = flag.Duration("idle", 30*time.Second, "idle CPU window")
	intervalFlag = flag.Int("interval", 5, "interval_seconds of the wait blocks (5 is the default of a block without one)")
	stopEvery    = flag.Duration("stop-every", 100*time.Millisecond, "pause between two target stops")
	keepFlag     = flag.Bool("keep", false, "keep the home directory")
)

const (
	clientName = "bench"
	reportHead = "codexhost marker report"
	watchHead  = "codexhost watch notification"
)

func main() {
	flag.Parse()
	if *binFlag == "" {
		fmt.Fprintln(os.Stderr, "markerload: -bin is required")
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "markerload:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	home, err := os.MkdirTemp("", "chm")
	if err != nil {
		return err
	}
	if *keepFlag {
		fmt.Println("home:", home)
	} else {
		defer os.RemoveAll(home)
	}
	b := &bench{home: home, fifos: filepath.Join(home, "fifos")}
	if err := os.Mkdir(b.fifos, 0o700); err != nil {
		return err
	}
	// gate: a turn that blocks on a FIFO named after its thread until the bench writes to it.
	// author: echoes its prompt (the blocks) on the first turn, answers reports with "ok".
	// The pool runs every wait at once; the quota leaves every creation round alone.
	conf := fmt.Sprintf(`[markers]
workers = %d
max_active_threads = 100000

[harnesses.gate]
command = ["sh", "-c", "f=\"$ML_FIFOS/$CODEXHOST_THREAD_ID\"; mkfifo \"$f\" && read x < \"$f\"; echo stopped"]
env = { ML_FIFOS = %q }

[harnesses.author]
command = ["sh", "-c", "p=$(cat); case \"$p\" in *\"%s\"*) echo ok;; *) printf '%%s\\n' \"$p\";; esac"]

[harnesses.rcpt]
command = ["sh", "-c", "cat >/dev/null"]
`, min(max(*waitsFlag, 8), 256), b.fifos, reportHead)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		return err
	}
	if err := b.addClient(); err != nil {
		return err
	}
	if err := b.start(ctx); err != nil {
		return err
	}
	defer b.stop()
	fmt.Printf("markerload: %d creations, %d waits (interval %d s), idle window %v, %d cpus\n", *createsFlag, *waitsFlag, *intervalFlag, *idleFlag, numCPU())
	if err := b.creations(ctx, *createsFlag); err != nil {
		return err
	}
	return b.waits(ctx, *waitsFlag)
}

func fence(info, body string) string { return "```" + info + "\n" + body + "\n```\n" }

// creations times, one sample after another, an author's completed turn to its created
// thread's first turn, and a delegate start to the started thread's first turn.
func (b *bench) creations(ctx context.Context, n int) error {
	var marker, delegate, delegateCall []time.Duration
	for i := range n {
		t0 := time.Now()
		direct, err := b.delegate(ctx, "gate", fmt.Sprintf("direct %d", i))
		if err != nil {
			return err
		}
		delegateCall = append(delegateCall, time.Since(t0))
		first, err := b.firstUserAt(ctx, direct)
		if err != nil {
			return err
		}
		delegate = append(delegate, first.Sub(t0))

		block := fence("task-create", fmt.Sprintf(`{"name":"c%d","prompt":"created %d","harness":"gate"}`, i, i))
		author, err := b.delegate(ctx, "author", block)
		if err != nil {
			return err
		}
		child, err := b.createdBy(ctx, author)
		if err != nil {
			return err
		}
		msgs, err := b.messagesUntil(ctx, author, func(ms []model.Message) bool { return len(ms) >= 2 })
		if err != nil {
			return err
		}
		completed := msgs[1].At // the first turn's answer, recorded as the turn ended
		started, err := b.firstUserAt(ctx, child)
		if err != nil {
			return err
		}
		marker = append(marker, started.Sub(completed))
		for _, id := range []string{direct, child} {
			if _, err := b.stopThread(id); err != nil {
				return err
			}
		}
	}
	fmt.Printf("creation, %d samples:\n", n)
	fmt.Printf("  author turn completed -> created thread running: %s\n", dist(marker))
	fmt.Printf("  delegate start called -> thread running:         %s\n", dist(delegate))
	fmt.Printf("  delegate start round trip:                        %s\n", dist(delegateCall))
	return nil
}

// waits starts n gate targets and n authors each waiting on one, measures idle CPU before
// and while the waits run, then stops the targets one by one: each stop ends a wait (its
// report) and a watch of the same target (its notification to a recipient thread of its own).
func (b *bench) waits(ctx context.Context, n int) error {
	targets := make([]string, n)
	for i := range n {
		id, err := b.delegate(ctx, "gate", fmt.Sprintf("target %d", i))
		if err != nil {
			return err
		}
		targets[i] = id
	}
	time.Sleep(5 * time.Second)
	base, err := b.cpuOver(*idleFlag)
	if err != nil {
		return err
	}
	fmt.Printf("idle cpu, %d running threads, no waits: %.2f%% of one core\n", n, base)

	authors := make([]string, n)
	for i, tgt := range targets {
		block := fence("wait-threads", fmt.Sprintf(`{"task_ids":[%q],"interval_seconds":%d,"timeout_seconds":3600}`, tgt, *intervalFlag))
		id, err := b.delegate(ctx, "author", block)
		if err != nil {
			return err
		}
		authors[i] = id
	}
	for _, a := range authors {
		if err := b.until(ctx, func() (bool, error) {
			res, err := api.ThreadMarkers.Call(ctx, b.c, api.ThreadMarkersParams{Thread: a})
			return len(res.Running) == 1, err
		}); err != nil {
			return fmt.Errorf("wait of %s not running: %w", a, err)
		}
	}
	time.Sleep(5 * time.Second)
	busy, err := b.cpuOver(*idleFlag)
	if err != nil {
		return err
	}
	fmt.Printf("idle cpu, %d running threads, %d waits running: %.2f%% of one core (rss %s)\n", n, n, busy, b.rss())

	// One recipient per target, as every wait has its own author: neither is ever busy with
	// another stop's delivery.
	rcpts := make([]string, n)
	for i := range n {
		if rcpts[i], err = b.delegate(ctx, "rcpt", fmt.Sprintf("recipient %d", i)); err != nil {
			return err
		}
	}
	for i, r := range rcpts {
		if err := b.until(ctx, func() (bool, error) { return b.idle(ctx, r) }); err != nil {
			return err
		}
		if _, err := api.ThreadWatch.Call(ctx, b.c, api.ThreadWatchParams{Thread: targets[i], Notify: r}); err != nil {
			return err
		}
	}
	return b.stops(ctx, targets, authors, rcpts)
}

// stops ends the targets one by one and reads when each report and notification arrived.
func (b *bench) stops(ctx context.Context, targets, authors, rcpts []string) error {
	stopped := make([]time.Time, len(targets))
	for i, tgt := range targets {
		at, err := b.stopThread(tgt)
		if err != nil {
			return err
		}
		stopped[i] = at
		time.Sleep(*stopEvery)
	}
	var report, watch []time.Duration
	for i := range targets {
		msgs, err := b.messagesUntil(ctx, authors[i], func(ms []model.Message) bool { return firstAt(ms, reportHead) != nil })
		if err != nil {
			return err
		}
		report = append(report, firstAt(msgs, reportHead).Sub(stopped[i]))
		if msgs, err = b.messagesUntil(ctx, rcpts[i], func(ms []model.Message) bool { return firstAt(ms, watchHead) != nil }); err != nil {
			return err
		}
		watch = append(watch, firstAt(msgs, watchHead).Sub(stopped[i]))
	}
	fmt.Printf("stops, %d targets, one every %v:\n", len(targets), *stopEvery)
	fmt.Printf("  target stopped -> wait report turn:          %s\n", dist(report))
	fmt.Printf("  target stopped -> watch notification turn:   %s\n", dist(watch))
	return nil
}

// firstAt is the time of the first user message that starts with head.
func firstAt(ms []model.Message, head string) *time.Time {
	for _, m := range ms {
		if m.Role == model.RoleUser && strings.HasPrefix(m.Text, head) {
			return &m.At
		}
	}
	return nil
}

func (b *bench) delegate(ctx context.Context, harness, task string) (string, error) {
	res, err := api.DelegateStart.Call(ctx, b.c, api.DelegateStartParams{Harness: harness, Task: task, Cwd: b.home})
	return res.Thread.ID, err
}

// createdBy is the thread the author's first task-create block created.
func (b *bench) createdBy(ctx context.Context, author string) (string, error) {
	var child string
	err := b.until(ctx, func() (bool, error) {
		res, err := api.ThreadMarkers.Call(ctx, b.c, api.ThreadMarkersParams{Thread: author})
		if err != nil {
			return false, err
		}
		for _, a := range res.Audit {
			if a.Decision != "accepted" {
				return false, fmt.Errorf("block %s of %s: %s %s", a.Tool, author, a.Decision, a.Code)
			}
			child = string(a.Created)
		}
		return child != "", nil
	})
	return child, err
}

func (b *bench) firstUserAt(ctx context.Context, id string) (time.Time, error) {
	msgs, err := b.messagesUntil(ctx, id, func(ms []model.Message) bool { return len(ms) >= 1 })
	if err != nil {
		return time.Time{}, err
	}
	return msgs[0].At, nil
}

func (b *bench) idle(ctx context.Context, id string) (bool, error) {
	res, err := api.ThreadRead.Call(ctx, b.c, api.ThreadReadParams{Thread: id})
	return res.Thread.Status == model.ThreadIdle, err
}

// messagesUntil reads a thread's messages (oldest first) until ok holds.
func (b *bench) messagesUntil(ctx context.Context, id string, ok func([]model.Message) bool) ([]model.Message, error) {
	var msgs []model.Message
	err := b.until(ctx, func() (bool, error) {
		res, err := api.ThreadRead.Call(ctx, b.c, api.ThreadReadParams{Thread: id, View: model.ViewMessages, Limit: 100})
		msgs = res.Messages
		return err == nil && ok(msgs), err
	})
	return msgs, err
}

// until polls cond every 5 ms for up to two minutes. The figures never come from its
// timing: they are the records the runtime wrote.
func (b *bench) until(_ context.Context, cond func() (bool, error)) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		ok, err := cond()
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
