package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"
)

// One cycle of the crash loops: a few threads start on the work harness, are watched for
// thread and client recipients and some stop, while the loop kills the runtime under it.

// wcPair is a watched thread and its notified party: the engine keeps at most one watch per
// pair while watching, and the crash loops register each pair once.
type wcPair struct{ thread, notify string }

// wcCycle is what one crash-loop cycle did before the runtime was killed under it.
type wcCycle struct {
	threads   []wcThread
	gated     map[string]bool // thread id → runs until its gate opens
	short     map[wcPair]bool // registered with a deadline shorter than the thread's run
	confirmed map[wcPair]string
	uncertain map[wcPair]bool // the runtime died during the call: the watch may or may not exist
	problems  []string
}

// cycleControl connects a cycle to the loop that kills the runtime under it.
type cycleControl struct {
	stopping atomic.Bool   // set just before the kill: the cycle starts no further call
	steps    chan struct{} // one per answered call; dropped when full
	stops    chan struct{} // one per gate the cycle opened; dropped when full
	// via is the extra environment of one call: the endpoint it goes to (nil: the home's socket).
	via func(*rand.Rand) []string
}

// crashMoment is when a cycle's runtime dies: after a number of answered calls, or in half
// of the cycles as soon as a gate opens (its notifications are then due and being delivered),
// and then a pause. Counting calls rather than time lets the loop register watches however
// slow the machine is; few calls mean a crash while the previous cycle's notifications are
// delivered.
type crashMoment struct {
	calls     int
	afterStop bool
	pause     time.Duration
}

func pickCrashMoment(rng *rand.Rand) crashMoment {
	if rng.IntN(2) == 0 {
		return crashMoment{calls: 14, afterStop: true, pause: time.Duration(rng.IntN(120)) * time.Millisecond}
	}
	return crashMoment{calls: rng.IntN(14), pause: time.Duration(rng.IntN(250)) * time.Millisecond}
}

// runCrashCycle runs one cycle against the home's runtime, calls kill at a random moment and
// returns what the cycle did and the crash kill reported.
func runCrashCycle(h *wcHome, rng *rand.Rand, recipients []string, seq *int, via func(*rand.Rand) []string, kill func() crashSpan) (wcCycle, crashSpan) {
	ctl := &cycleControl{steps: make(chan struct{}, 64), stops: make(chan struct{}, 8), via: via}
	if ctl.via == nil {
		ctl.via = func(*rand.Rand) []string { return nil }
	}
	done := make(chan wcCycle, 1)
	cycleRng := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	go func() { done <- wcRunCycle(h, cycleRng, recipients, seq, ctl) }()
	m := pickCrashMoment(rng)
	var stops <-chan struct{}
	if m.afterStop {
		stops = ctl.stops
	}
wait:
	for n := 0; n < m.calls; {
		select {
		case <-ctl.steps:
			n++
		case <-stops:
			break wait
		case res := <-done: // the cycle failed on its own
			ctl.stopping.Store(true)
			return res, kill()
		}
	}
	time.Sleep(m.pause)
	ctl.stopping.Store(true)
	span := kill()
	return <-done, span
}

// cycleRun is one running cycle. Its methods only record: the test goroutine checks.
type cycleRun struct {
	h   *wcHome
	rng *rand.Rand
	ctl *cycleControl
	res wcCycle
}

// wcRunCycle starts a few threads, watches them and stops some, until the loop stops it.
func wcRunCycle(h *wcHome, rng *rand.Rand, recipients []string, seq *int, ctl *cycleControl) wcCycle {
	c := &cycleRun{h: h, rng: rng, ctl: ctl, res: wcCycle{gated: map[string]bool{}, short: map[wcPair]bool{}, confirmed: map[wcPair]string{}, uncertain: map[wcPair]bool{}}}
	for range 1 + rng.IntN(2) {
		*seq++
		th, gate, ok := c.startThread(*seq)
		if !ok {
			return c.res
		}
		for i, notify := range wcPick(rng, recipients) {
			if !c.watch(th, gate, notify, i == 0) {
				return c.res
			}
		}
		if gate && rng.IntN(3) != 0 {
			time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
			if err := os.WriteFile(filepath.Join(h.gates, th.ID), nil, 0o600); err != nil {
				c.res.problems = append(c.res.problems, err.Error())
			}
			select {
			case ctl.stops <- struct{}{}:
			default:
			}
		}
	}
	// Idle until the crash; the stops above are being delivered meanwhile.
	for {
		if _, ok := c.call("thread", "watches"); !ok {
			return c.res
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// call runs one command; false means the cycle is over: the loop is stopping it, or the
// runtime is gone, or the command failed (recorded as a problem).
func (c *cycleRun) call(args ...string) (wcResult, bool) {
	if c.ctl.stopping.Load() {
		return wcResult{}, false
	}
	r := c.h.cliEnv(c.ctl.via(c.rng), args...)
	switch {
	case r.err == nil && r.code == 0:
		select {
		case c.ctl.steps <- struct{}{}:
		default:
		}
		return r, true
	case r.unreachable():
	default:
		c.res.problems = append(c.res.problems, fmt.Sprintf("unexpected failure\n%s", r))
	}
	return r, false
}

func (c *cycleRun) decode(r wcResult, v any) bool {
	if err := wcDecode(r, v); err != nil {
		c.res.problems = append(c.res.problems, err.Error())
		return false
	}
	return true
}

// startThread starts a work thread that sleeps a fraction of a second or waits for its gate.
func (c *cycleRun) startThread(seq int) (th wcThread, gate, ok bool) {
	task := fmt.Sprintf("%.2f wc-task-%d", 0.1+0.7*c.rng.Float64(), seq)
	gate = c.rng.IntN(2) == 0
	if gate {
		task = fmt.Sprintf("gate wc-task-%d", seq)
	}
	r, ok := c.call("delegate", "start", "--harness", "work", "--task", task)
	var started struct{ Thread wcThread }
	if !ok || !c.decode(r, &started) {
		return wcThread{}, false, false
	}
	th = started.Thread
	c.res.threads = append(c.res.threads, th)
	c.res.gated[th.ID] = gate
	return th, gate, true
}

// watch registers a watch of th for notify and, for the first recipient of a thread that is
// sure to be running, registers it again and expects the same watch back.
func (c *cycleRun) watch(th wcThread, gate bool, notify string, first bool) bool {
	p := wcPair{th.ID, notify}
	args := []string{"thread", "watch", th.ID, "--notify", notify}
	if gate && c.rng.IntN(5) == 0 {
		args = append(args, "--timeout-ms", "300")
		c.res.short[p] = true
	}
	c.res.uncertain[p] = true
	r, ok := c.call(args...)
	var w wcWatchResult
	if !ok || !c.decode(r, &w) {
		return false
	}
	delete(c.res.uncertain, p)
	switch {
	case w.State == "alreadyTerminal" && !gate:
		return true // a short task ended first: nothing registered
	case w.State == "alreadyTerminal" && c.ctl.stopping.Load() && w.Status == "interrupted":
		// The call crossed the crash and was answered by the runtime that took the home
		// over: the gated turn died with the runtime that ran it.
		return false
	case w.State != "watching" || w.Watch == nil || w.Existing || w.Watch.Thread != th.ID || w.Watch.Notify != notify:
		c.res.problems = append(c.res.problems, fmt.Sprintf("thread watch %v answered %s", p, r.stdout))
		return false
	}
	c.res.confirmed[p] = w.Watch.ID
	// A short deadline may have passed (a new watch for the next stop would then be right).
	if !first || !gate || c.res.short[p] {
		return true
	}
	r, ok = c.call(args...)
	var again wcWatchResult
	if !ok || !c.decode(r, &again) {
		return false
	}
	if again.State == "watching" && (!again.Existing || again.Watch == nil || again.Watch.ID != w.Watch.ID) {
		c.res.problems = append(c.res.problems, fmt.Sprintf("registering %v again answered %s", p, r.stdout))
	}
	return true
}

// wcPick returns a random non-empty subset of the recipients in random order.
func wcPick(rng *rand.Rand, recipients []string) []string {
	out := slices.Clone(recipients)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:1+rng.IntN(len(out))]
}

func wcDecode(r wcResult, v any) error {
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		return fmt.Errorf("decoding %v\n%s", err, r)
	}
	return nil
}
