// Command watchload measures the watch engine of a real `codexhost serve` under many active
// watches: setup throughput, idle CPU and RSS, latency from a thread's stop to its
// notification, and restart recovery. Setup goes through the runtime API directly, since a
// CLI process per watch would dominate the run.
//
// Every watched thread runs one turn on an external harness that blocks on a FIFO named after
// the thread until watchload writes to it, so a stop happens exactly when asked and costs the
// runtime nothing while it waits. Each thread is watched by one of the recipient threads and
// by the client, so -threads 5000 gives 10,000 watches (the machine's open-file limit, not the
// engine, keeps the number of concurrently running turns at a few thousand).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/codexhost/codexhost/bench/procstat"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

var (
	binFlag        = flag.String("bin", "", "codexhost binary (required)")
	threadsFlag    = flag.Int("threads", 5000, "watched threads; each gets two watches (a recipient thread and the client)")
	recipientsFlag = flag.Int("recipients", 50, "recipient threads, shared round-robin")
	idleFlag       = flag.Duration("idle", 60*time.Second, "idle CPU measurement window; a whole reconciliation period (60 s) averages over the reads, printed in 10 s slices")
	quietFlag      = flag.Duration("quiet", 60*time.Second, "wait after setup before measuring idle CPU: the engine's reconciliation reads start a minute after a registration")
	stopsFlag      = flag.Int("stops", 300, "threads stopped one by one for the latency figures")
	stopEveryFlag  = flag.Duration("stop-every", 50*time.Millisecond, "pause between two stops")
	workersFlag    = flag.Int("workers", 8, "parallel setup calls")
	keepFlag       = flag.Bool("keep", false, "keep the home directory")
	baselineFlag   = flag.Bool("baseline", false, "start the threads but register no watch, measure idle CPU and RSS, and stop: the runtime's cost without the engine's")
)

const clientName = "bench"

func main() {
	flag.Parse()
	if *binFlag == "" {
		fmt.Fprintln(os.Stderr, "watchload: -bin is required")
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "watchload:", err)
		os.Exit(1)
	}
}

type bench struct {
	home, fifos string
	token       string
	serve       *exec.Cmd
	exited      chan struct{}
	c           *api.Client
	recipients  []string
}

func run() error {
	ctx := context.Background()
	// A short path: the runtime's socket lives in the home.
	home, err := os.MkdirTemp("", "chb")
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
	// The work turn makes its FIFO and blocks opening it until watchload writes.
	conf := fmt.Sprintf(`[harnesses.gate]
command = ["sh", "-c", "f=\"$WL_FIFOS/$CODEXHOST_THREAD_ID\"; mkfifo \"$f\" && read x < \"$f\"; echo stopped"]
env = { WL_FIFOS = %q }

[harnesses.rcpt]
command = ["sh", "-c", "cat >/dev/null"]
`, b.fifos)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(conf), 0o600); err != nil {
		return err
	}
	out, err := b.cmd("client", "add", clientName, "--json").Output()
	if err != nil {
		return fmt.Errorf("client add: %w", err)
	}
	var added struct{ Token string }
	if err := json.Unmarshal(out, &added); err != nil {
		return err
	}
	b.token = added.Token

	if _, err := b.start(ctx); err != nil {
		return err
	}
	defer b.stop()

	n := *threadsFlag
	watches := 2 * n
	if *baselineFlag {
		watches = 0
	}
	fmt.Printf("setup: %d recipient threads, %d running threads, %d watches\n", *recipientsFlag, n, watches)
	for i := range *recipientsFlag {
		var res api.DelegateStartResult
		if err := b.c.Call(ctx, api.MethodDelegateStart, api.DelegateStartParams{Harness: "rcpt", Task: fmt.Sprintf("recipient %d", i)}, &res); err != nil {
			return err
		}
		b.recipients = append(b.recipients, res.Thread.ID)
	}
	for _, r := range b.recipients {
		if err := b.c.Call(ctx, api.MethodThreadWait, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: r}, TimeoutMs: 30000}, nil); err != nil {
			return err
		}
	}
	started := time.Now()
	threads, err := b.watched(ctx, 0, n)
	if err != nil {
		return err
	}
	took := time.Since(started)
	fmt.Printf("setup: %d threads started and %d watches registered in %v\n", n, watches, took.Round(time.Millisecond))
	if err := b.expectWatching(ctx, watches); err != nil {
		return err
	}

	// Idle: nothing happens but the engine's own timers.
	time.Sleep(*quietFlag)
	fmt.Printf("rss after setup: %s\n", b.rss())
	cpu, err := b.cpuOver(*idleFlag)
	if err != nil {
		return err
	}
	fmt.Printf("idle cpu over %v with %d watches: %.2f%% of one core\n", *idleFlag, watches, cpu)
	fmt.Printf("rss after idle: %s\n", b.rss())
	if *baselineFlag {
		return nil
	}

	if err := b.latency(ctx, threads[:min(*stopsFlag, n)]); err != nil {
		return err
	}

	// Back to the full number of active watches, then a clean restart.
	if _, err := b.watched(ctx, n, min(*stopsFlag, n)); err != nil {
		return err
	}
	if err := b.expectWatching(ctx, 2*n); err != nil {
		return err
	}
	return b.restart(ctx, 2*n)
}

func (b *bench) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(*binFlag, args...)
	// Only this home: a codexhost connection of whoever runs the bench must not leak in.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CODEXHOST_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "CODEXHOST_HOME="+b.home)
	cmd.Stderr = os.Stderr
	return cmd
}

// start runs serve, waits until it listens and connects as the client. It returns how long
// serve took to listen.
func (b *bench) start(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	cmd := b.cmd("serve")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	b.serve, b.exited = cmd, make(chan struct{})
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		announced := false
		for sc.Scan() {
			if !announced && strings.Contains(sc.Text(), "listening on") {
				announced = true
				close(listening)
			}
		}
		_ = cmd.Wait()
		close(b.exited)
	}()
	select {
	case <-listening:
	case <-b.exited:
		return 0, fmt.Errorf("serve exited: %v\n%s", cmd.ProcessState, stderr.String())
	case <-time.After(60 * time.Second):
		return 0, errors.New("serve did not listen within 60 s")
	}
	took := time.Since(t0)
	c, err := api.Dial(ctx, api.UnixEndpoint(filepath.Join(b.home, "runtime.sock")), b.token)
	if err != nil {
		return 0, err
	}
	b.c = c
	return took, nil
}

// stop ends serve with SIGTERM and returns how long it took to exit.
func (b *bench) stop() time.Duration {
	if b.serve == nil {
		return 0
	}
	if b.c != nil {
		b.c.Close()
		b.c = nil
	}
	t0 := time.Now()
	_ = b.serve.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.exited:
	case <-time.After(60 * time.Second):
		_ = b.serve.Process.Kill()
		<-b.exited
	}
	b.serve = nil
	return time.Since(t0)
}

// watched starts count gate threads (numbered from first) and watches each for a recipient
// thread and for the client.
func (b *bench) watched(ctx context.Context, first, count int) ([]string, error) {
	ids := make([]string, count)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, *workersFlag)
	for range *workersFlag {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= count {
					return
				}
				var res api.DelegateStartResult
				if err := b.c.Call(ctx, api.MethodDelegateStart, api.DelegateStartParams{Harness: "gate", Task: fmt.Sprintf("gate load-%d", first+i)}, &res); err != nil {
					errs <- err
					return
				}
				id := res.Thread.ID
				ids[i] = id
				if *baselineFlag {
					continue
				}
				for _, notify := range []string{b.recipients[(first+i)%len(b.recipients)], model.ClientRecipientPrefix + clientName} {
					var w api.WatchResult
					if err := b.c.Call(ctx, api.MethodThreadWatch, api.ThreadWatchParams{Thread: id, Notify: notify}, &w); err != nil {
						errs <- err
						return
					}
					if w.State != model.WatchWatching {
						errs <- fmt.Errorf("watch %s for %s: %+v", id, notify, w)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return ids, <-errs
}

func (b *bench) watches(ctx context.Context) (api.WatchesResult, error) {
	var res api.WatchesResult
	err := b.c.Call(ctx, api.MethodThreadWatches, nil, &res)
	return res, err
}

func (b *bench) expectWatching(ctx context.Context, want int) error {
	res, err := b.watches(ctx)
	if err != nil {
		return err
	}
	if len(res.Watching) != want || len(res.Pending) != 0 || len(res.Undeliverable) != 0 {
		return fmt.Errorf("want %d watching, have %d watching, %d pending, %d undeliverable", want, len(res.Watching), len(res.Pending), len(res.Undeliverable))
	}
	return nil
}

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
		var rd api.ThreadReadResult
		if err := b.c.Call(ctx, api.MethodThreadRead, api.ThreadReadParams{Thread: id}, &rd); err != nil {
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

// stopThread lets a gate thread's turn end: it writes to the FIFO the turn is blocked on.
func (b *bench) stopThread(id string) (time.Time, error) {
	path := filepath.Join(b.fifos, id)
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Non-blocking: ENXIO (or no file yet) until the turn has opened its end.
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			_, err = f.Write([]byte("\n"))
			at := time.Now()
			f.Close()
			return at, err
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("stop %s: %w", id, err)
		}
		time.Sleep(time.Millisecond)
	}
}

func (b *bench) clientEvents(ctx context.Context, after string) ([]model.ClientEvent, error) {
	var all []model.ClientEvent
	for {
		var res api.ClientEventsResult
		if err := b.c.Call(ctx, api.MethodClientEvents, api.ClientEventsParams{After: after, Limit: 100}, &res); err != nil {
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
		var res api.ThreadReadResult
		if err := b.c.Call(ctx, api.MethodThreadRead, api.ThreadReadParams{Thread: id, View: model.ViewMessages, Limit: 100, Cursor: cursor}, &res); err != nil {
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

// cpuOver is the serve process's CPU use over d, in percent of one core. It also prints the
// use in 10 s slices, where periodic work (reconciliation reads, badger's compactions) shows.
func (b *bench) cpuOver(d time.Duration) (float64, error) {
	pid := b.serve.Process.Pid
	first, err := procstat.CPUTicks(pid)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	prev, prevAt := first, t0
	var slices []string
	for elapsed := time.Duration(0); elapsed < d; {
		step := min(10*time.Second, d-elapsed)
		time.Sleep(step)
		elapsed += step
		ticks, err := procstat.CPUTicks(pid)
		if err != nil {
			return 0, err
		}
		now := time.Now()
		slices = append(slices, fmt.Sprintf("%.2f%%", float64(ticks-prev)/procstat.ClockTicks()/now.Sub(prevAt).Seconds()*100))
		prev, prevAt = ticks, now
	}
	fmt.Printf("  idle cpu by 10 s slice: %s\n", strings.Join(slices, " "))
	return float64(prev-first) / procstat.ClockTicks() / prevAt.Sub(t0).Seconds() * 100, nil
}

func (b *bench) rss() string { return procstat.RSS(b.serve.Process.Pid) }

func dist(ds []time.Duration) string { return procstat.Dist(ds) }
