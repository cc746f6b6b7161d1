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
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codexhost/codexhost/bench/procstat"
	"github.com/codexhost/codexhost/bench/serveproc"
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
	serve       *serveproc.Serve
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
		res, err := api.DelegateStart.Call(ctx, b.c, api.DelegateStartParams{Harness: "rcpt", Task: fmt.Sprintf("recipient %d", i)})
		if err != nil {
			return err
		}
		b.recipients = append(b.recipients, res.Thread.ID)
	}
	for _, r := range b.recipients {
		if _, err := api.ThreadWait.Call(ctx, b.c, api.ThreadWaitParams{ThreadReadParams: api.ThreadReadParams{Thread: r}, TimeoutMs: api.WaitMs(30000)}); err != nil {
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

func (b *bench) cmd(args ...string) *exec.Cmd { return serveproc.Command(*binFlag, b.home, args...) }

// start runs serve, waits until it listens and connects as the client. It returns how long
// serve took to listen.
func (b *bench) start(ctx context.Context) (time.Duration, error) {
	t0 := time.Now()
	var err error
	b.serve, err = serveproc.Start(b.cmd("serve"))
	if err != nil {
		return 0, err
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
	took := b.serve.Stop()
	b.serve = nil
	return took
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
				res, err := api.DelegateStart.Call(ctx, b.c, api.DelegateStartParams{Harness: "gate", Task: fmt.Sprintf("gate load-%d", first+i)})
				if err != nil {
					errs <- err
					return
				}
				id := res.Thread.ID
				ids[i] = id
				if *baselineFlag {
					continue
				}
				for _, notify := range []string{b.recipients[(first+i)%len(b.recipients)], model.ClientRecipientPrefix + clientName} {
					w, err := api.ThreadWatch.Call(ctx, b.c, api.ThreadWatchParams{Thread: id, Notify: notify})
					if err != nil {
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
	res, err := api.ThreadWatches.Call(ctx, b.c, struct{}{})
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

// cpuOver is the serve process's CPU use over d, in percent of one core. It also prints the
// use in 10 s slices, where periodic work (reconciliation reads, badger's compactions) shows.
func (b *bench) cpuOver(d time.Duration) (float64, error) {
	pid := b.serve.Pid()
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

func (b *bench) rss() string { return procstat.RSS(b.serve.Pid()) }

func dist(ds []time.Duration) string { return procstat.Dist(ds) }
