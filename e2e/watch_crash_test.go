package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wcPair is a watched thread and its notified party: the engine keeps at most one watch per
// pair while watching, and the crash loop registers each pair once.
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

// TestWatchCrashLoop SIGKILLs the runtime at random moments while threads start and stop,
// watches are registered and notifications are delivered, then checks that every watch
// ended delivered or undeliverable with a reason, that duplicates only come from a crash,
// and that each notification reports the thread's real outcome.
func TestWatchCrashLoop(t *testing.T) {
	// bench/watch-crash.sh runs more cycles; a seed from a failed run's log replays its choices
	// (not the timing).
	cycles := wcEnvInt(t, "WATCH_CRASH_CYCLES", 36)
	seed := uint64(wcEnvInt(t, "WATCH_CRASH_SEED", int(time.Now().UnixNano())))
	t.Logf("seed %d (WATCH_CRASH_SEED), %d cycles", seed, cycles)
	rng := rand.New(rand.NewPCG(seed, seed>>1))

	h := newWCHome(t)
	h.start()
	var recipients []string
	for i := range 3 {
		recipients = append(recipients, h.delegate("rcpt", fmt.Sprintf("recipient %d", i)).ID)
	}
	recipients = append(recipients, "client:"+wcClient)

	threads := map[string]wcThread{} // by link
	gated := map[string]bool{}
	short := map[wcPair]bool{}
	confirmed := map[wcPair]string{}
	uncertain := map[wcPair]bool{}
	// starts are the times a runtime was started after a crash: a duplicate delivery must
	// have one between its two copies.
	var starts []time.Time
	seq := 0
	for c := range cycles {
		if h.serve == nil {
			starts = append(starts, time.Now())
			h.start()
		}
		done := make(chan wcCycle, 1)
		go func(r *rand.Rand) { done <- wcRunCycle(h, r, recipients, &seq) }(rand.New(rand.NewPCG(rng.Uint64(), uint64(c))))
		// Half of the crashes come early, while the previous cycle's stops are delivered.
		delay := time.Duration(rng.IntN(150)) * time.Millisecond
		if rng.IntN(2) == 0 {
			delay = time.Duration(150+rng.IntN(550)) * time.Millisecond
		}
		time.Sleep(delay)
		h.kill()
		res := <-done
		for _, p := range res.problems {
			t.Errorf("cycle %d: %s", c, p)
		}
		for _, th := range res.threads {
			threads[th.Link] = th
			gated[th.ID] = res.gated[th.ID]
		}
		for p, id := range res.confirmed {
			if old, ok := confirmed[p]; ok && old != id {
				t.Errorf("pair %v has two watches %s and %s", p, old, id)
			}
			confirmed[p] = id
		}
		for p := range res.uncertain {
			uncertain[p] = true
		}
		for p := range res.short {
			short[p] = true
		}
	}

	starts = append(starts, time.Now())
	h.start()
	for id, g := range gated {
		if g {
			h.openGate(id)
		}
	}
	settled := h.settle(45 * time.Second) // a notification refused as busy before the last crash waits out BusyRetry (30 s)

	// What each watch delivered: notification turns by recipient and thread link, client
	// events by watch id.
	notices := map[string]map[string][]wcNotice{}
	for _, r := range recipients[:3] {
		msgs := h.messages(r)
		for _, m := range msgs {
			if strings.Contains(m.Text, "wc-task-") {
				t.Errorf("a message of recipient %s quotes a watched thread's task: %q", r, m.Text)
			}
		}
		notices[r] = wcNotices(msgs)
	}
	clientNotices := map[string][]wcNotice{} // by watch id
	eventThread := map[string]string{}       // watch id → thread link
	for _, ev := range h.events() {
		if ev.Type != "watch.notification" {
			t.Errorf("unexpected client event %+v", ev)
			continue
		}
		clientNotices[ev.Watch] = append(clientNotices[ev.Watch], wcNotice{at: ev.At, result: ev.Result, reason: ev.Reason})
		eventThread[ev.Watch] = ev.Link
	}
	final := map[string]string{} // thread link → status of its one turn
	for link, th := range threads {
		var res struct{ Thread wcThread }
		h.must(&res, "thread", "read", th.ID)
		if res.Thread.LastTurn == nil {
			t.Errorf("thread %s has no turn", th.ID)
			continue
		}
		final[link] = res.Thread.LastTurn.Status
	}
	undeliverable := map[string]wcWatch{}
	for _, w := range settled.Undeliverable {
		undeliverable[w.ID] = w
		if w.Reason == "" {
			t.Errorf("undeliverable watch without a reason: %+v", w)
		}
	}

	// deliveries returns the notices of a pair (and, for a client, of the watch id).
	deliveries := func(p wcPair, watchID string) []wcNotice {
		th := wcThreadByID(threads, p.thread)
		if strings.HasPrefix(p.notify, "client:") {
			if watchID != "" {
				return clientNotices[watchID]
			}
			var out []wcNotice
			for id, link := range eventThread {
				if link == th.Link {
					out = append(out, clientNotices[id]...)
				}
			}
			return out
		}
		return notices[p.notify][th.Link]
	}
	duplicates := 0
	checkNotices := func(p wcPair, ns []wcNotice) {
		th := wcThreadByID(threads, p.thread)
		slices.SortFunc(ns, func(a, b wcNotice) int { return a.at.Compare(b.at) })
		for i, n := range ns {
			if !wcResultFits(n, final[th.Link], short[p]) {
				t.Errorf("watch %v reported %q (%s); the thread's turn ended %q", p, n.result, n.reason, final[th.Link])
			}
			if i == 0 {
				continue
			}
			duplicates++
			prev := ns[i-1].at
			if !slices.ContainsFunc(starts, func(s time.Time) bool { return s.After(prev) && s.Before(n.at) }) {
				t.Errorf("watch %v delivered at %v and again at %v with no crash in between", p, prev, n.at)
			}
		}
	}
	delivered, gaveUp := 0, 0
	for p, id := range confirmed {
		ns := deliveries(p, id)
		u, isUndeliverable := undeliverable[id]
		switch {
		case len(ns) > 0:
			delivered++
		case isUndeliverable:
			gaveUp++
			t.Logf("watch %s undeliverable: %s", id, u.Reason)
		default:
			t.Errorf("watch %s %v was lost: neither delivered nor undeliverable", id, p)
		}
		checkNotices(p, ns)
	}
	for p := range uncertain {
		if _, ok := confirmed[p]; !ok {
			checkNotices(p, deliveries(p, ""))
		}
	}
	// Nothing arrives that nobody asked for.
	for r, byLink := range notices {
		for link := range byLink {
			th, ok := threads[link]
			p := wcPair{th.ID, r}
			if _, known := confirmed[p]; !ok || (!known && !uncertain[p]) {
				t.Errorf("recipient %s was notified about %s, which it did not watch", r, link)
			}
		}
	}
	for id, link := range eventThread {
		p := wcPair{threads[link].ID, "client:" + wcClient}
		if confirmed[p] != id && !uncertain[p] {
			t.Errorf("client event for watch %s on %s, which was not registered", id, link)
		}
	}
	if duplicates > cycles {
		t.Errorf("%d duplicate deliveries for %d crashes", duplicates, cycles)
	}
	if len(confirmed) < cycles/2 {
		t.Errorf("only %d watches were registered in %d cycles: the loop did not exercise the engine", len(confirmed), cycles)
	}
	t.Logf("%d crashes, %d threads, %d watches (%d delivered, %d undeliverable), %d registrations cut by a crash, %d duplicate deliveries",
		cycles, len(threads), len(confirmed), delivered, gaveUp, len(uncertain), duplicates)

	// The list is the same after a clean restart.
	before := h.cli("thread", "watches")
	h.stop()
	h.start()
	if after := h.cli("thread", "watches"); after.stdout != before.stdout || after.code != 0 {
		t.Errorf("thread watches changed across a restart:\nbefore: %s\nafter:  %s", before, after)
	}
}

// wcResultFits reports whether a notification tells the outcome of a turn that ended with
// status: that status, timedOut when the watch had a short deadline, or interrupted with a
// reason when the turn completed but the runtime died before recording that (the engine then
// cannot tell the turn from one that its death cut short). Never completed for a turn that
// was interrupted.
func wcResultFits(n wcNotice, status string, short bool) bool {
	switch {
	case n.result == status:
		return true
	case n.result == "timedOut":
		return short
	case n.result == "interrupted" && status == "completed":
		return n.reason != ""
	}
	return false
}

func wcEnvInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func wcThreadByID(threads map[string]wcThread, id string) wcThread {
	for _, th := range threads {
		if th.ID == id {
			return th
		}
	}
	return wcThread{}
}

// wcRunCycle starts a few threads, watches them and stops some, until the runtime dies
// under it. It only records: the test goroutine checks.
func wcRunCycle(h *wcHome, rng *rand.Rand, recipients []string, seq *int) wcCycle {
	res := wcCycle{gated: map[string]bool{}, short: map[wcPair]bool{}, confirmed: map[wcPair]string{}, uncertain: map[wcPair]bool{}}
	// call runs one command; false means the runtime is gone and the cycle is over.
	call := func(args ...string) (wcResult, bool) {
		r := h.cli(args...)
		switch {
		case r.err == nil && r.code == 0:
			return r, true
		case r.unreachable():
		default:
			res.problems = append(res.problems, fmt.Sprintf("unexpected failure\n%s", r))
		}
		return r, false
	}
	for range 1 + rng.IntN(2) {
		*seq++
		task := fmt.Sprintf("%.2f wc-task-%d", 0.1+0.7*rng.Float64(), *seq)
		gate := rng.IntN(2) == 0
		if gate {
			task = fmt.Sprintf("gate wc-task-%d", *seq)
		}
		r, ok := call("delegate", "start", "--harness", "work", "--task", task)
		if !ok {
			return res
		}
		var started struct{ Thread wcThread }
		if err := wcDecode(r, &started); err != nil {
			res.problems = append(res.problems, err.Error())
			return res
		}
		th := started.Thread
		res.threads = append(res.threads, th)
		res.gated[th.ID] = gate

		for i, notify := range wcPick(rng, recipients) {
			p := wcPair{th.ID, notify}
			args := []string{"thread", "watch", th.ID, "--notify", notify}
			if gate && rng.IntN(5) == 0 {
				args = append(args, "--timeout-ms", "300")
				res.short[p] = true
			}
			res.uncertain[p] = true
			r, ok := call(args...)
			if !ok {
				return res
			}
			delete(res.uncertain, p)
			var w wcWatchResult
			if err := wcDecode(r, &w); err != nil {
				res.problems = append(res.problems, err.Error())
				return res
			}
			switch {
			case w.State == "alreadyTerminal" && !gate:
				continue // a short task ended first: nothing registered
			case w.State != "watching" || w.Watch == nil || w.Existing || w.Watch.Thread != th.ID || w.Watch.Notify != notify:
				res.problems = append(res.problems, fmt.Sprintf("thread watch %v answered %s", p, r.stdout))
				return res
			}
			res.confirmed[p] = w.Watch.ID
			// Only a gated thread is sure to be running still, and a short deadline may have
			// passed (a new watch for the next stop would then be right).
			if i == 0 && gate && !res.short[p] {
				// Registering the pair again while it is watched returns the same watch.
				r, ok := call(args...)
				if !ok {
					return res
				}
				var again wcWatchResult
				if err := wcDecode(r, &again); err != nil {
					res.problems = append(res.problems, err.Error())
					return res
				}
				if again.State == "watching" && (!again.Existing || again.Watch == nil || again.Watch.ID != w.Watch.ID) {
					res.problems = append(res.problems, fmt.Sprintf("registering %v again answered %s", p, r.stdout))
				}
			}
		}
		if gate && rng.IntN(3) != 0 {
			time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
			if err := os.WriteFile(filepath.Join(h.gates, th.ID), nil, 0o600); err != nil {
				res.problems = append(res.problems, err.Error())
			}
		}
	}
	// Idle until the crash; the stops above are being delivered meanwhile.
	for {
		if _, ok := call("thread", "watches"); !ok {
			return res
		}
		time.Sleep(20 * time.Millisecond)
	}
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

// TestWatchFaultPoints stops the runtime exactly at each point of a delivery and checks the
// outcome after a restart: never lost, and a second copy only when the crash came after the
// notification was sent but before that was recorded.
func TestWatchFaultPoints(t *testing.T) {
	for _, c := range []struct {
		point string
		// copies of the notification in the recipient's transcript when the runtime died, and
		// after the restart delivered what was due
		atDeath, final int
	}{
		{"before-record", 0, 1},
		{"after-delivery-started", 0, 1},
		{"after-delivery-sent", 1, 2},
		{"after-delivery-recorded", 1, 1},
	} {
		t.Run(c.point, func(t *testing.T) {
			h := newWCHome(t)
			s := h.start("CODEXHOST_TEST_FAULT=" + c.point)
			rcpt := h.delegate("rcpt", "recipient")
			// An idle recipient, so that the delivery is not refused as THREAD_BUSY.
			h.must(nil, "thread", "wait", rcpt.ID, "--timeout-ms", "10000")
			w := h.delegate("work", "gate fault")
			var toThread, toClient wcWatchResult
			h.must(&toThread, "thread", "watch", w.ID, "--notify", rcpt.ID)
			h.must(&toClient, "thread", "watch", w.ID, "--notify", "client:"+wcClient)
			if toThread.State != "watching" || toClient.State != "watching" {
				t.Fatalf("watches not registered: %+v %+v", toThread, toClient)
			}

			h.openGate(w.ID)
			select {
			case <-s.exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("the runtime did not stop at %s", c.point)
			}
			h.serve = nil
			ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the runtime exited with %v, not killed at %s\n%s", s.cmd.ProcessState, c.point, s.stderr)
			}
			transcript, err := os.ReadFile(filepath.Join(h.dir, "transcripts", rcpt.ID+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(transcript, []byte(w.Link+" stopped")); n != c.atDeath {
				t.Fatalf("the recipient had %d notifications when the runtime died at %s, want %d", n, c.point, c.atDeath)
			}

			h.start()
			settled := h.settle(20 * time.Second)
			if len(settled.Undeliverable) != 0 {
				t.Errorf("undeliverable: %+v", settled.Undeliverable)
			}
			got := wcNotices(h.messages(rcpt.ID))[w.Link]
			if len(got) != c.final {
				t.Errorf("the recipient got %d notifications, want %d: %+v", len(got), c.final, got)
			}
			for _, n := range got {
				if !wcResultFits(n, "completed", false) {
					t.Errorf("notified %q (%s); the thread completed before the crash", n.result, n.reason)
				}
			}
			var events []wcEvent
			for _, ev := range h.events() {
				if ev.Watch == toClient.Watch.ID {
					events = append(events, ev)
				}
			}
			if len(events) != 1 || events[0].Link != w.Link || !wcResultFits(wcNotice{result: events[0].Result, reason: events[0].Reason}, "completed", false) {
				t.Errorf("client events of the watch: %+v, want one completed", events)
			}
		})
	}
}

// Scenario: S000-43 (多个 Runtime 共用数据目录) — a second serve on a held home follows the first:
// its --listen endpoint answers by forwarding to the first, keeping the caller's identity.
// When the first is killed the second takes the home over within seconds, and each watch
// registered through either is delivered exactly once, by the second.
func TestWatchSecondRuntimeTakesOver(t *testing.T) {
	h := newWCHome(t)
	h.start()
	rcpt := h.delegate("rcpt", "recipient")
	// An idle recipient, so that the delivery is not refused as THREAD_BUSY.
	h.must(nil, "thread", "wait", rcpt.ID, "--timeout-ms", "10000")
	toThread, toClient := h.delegate("work", "gate one"), h.delegate("work", "gate two")
	var watchThread, watchClient wcWatchResult
	h.must(&watchThread, "thread", "watch", toThread.ID, "--notify", rcpt.ID)
	h.must(&watchClient, "thread", "watch", toClient.ID, "--notify", "client:"+wcClient)

	second := exec.Command(h.bin, "serve", "--listen", "127.0.0.1:0", "--json")
	second.Env, second.Dir = h.env(), h.work
	stderr := &syncBuffer{}
	second.Stderr = stderr
	out, err := second.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	announced := make(chan serveAnnounce, 4)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var a serveAnnounce
			if json.Unmarshal(sc.Bytes(), &a) == nil {
				announced <- a
			}
		}
		_ = second.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = second.Process.Kill()
		<-exited
	})
	next := func(within time.Duration) serveAnnounce {
		t.Helper()
		select {
		case a := <-announced:
			return a
		case <-exited:
			t.Fatalf("the second serve exited: %v\n%s", second.ProcessState, stderr)
		case <-time.After(within):
			t.Fatalf("the second serve announced nothing within %v\n%s", within, stderr)
		}
		return serveAnnounce{}
	}
	a := next(20 * time.Second)
	if a.Role != "follower" || len(a.Endpoints) != 1 || !strings.HasPrefix(a.Endpoints[0], "tcp://") {
		t.Fatalf("the second serve announced %+v, want a follower listening on TCP only", a)
	}

	// Through the follower: without --notify the watch goes to the calling client, so the
	// record shows that the caller's identity reached the first runtime.
	viaFollower := []string{"CODEXHOST_ENDPOINT=" + a.Endpoints[0]}
	third := h.delegate("work", "gate three")
	r := h.cliEnv(viaFollower, "thread", "watch", third.ID)
	var watchForwarded wcWatchResult
	if r.err != nil || r.code != 0 || json.Unmarshal([]byte(r.stdout), &watchForwarded) != nil ||
		watchForwarded.State != "watching" || watchForwarded.Watch.Notify != "client:"+wcClient {
		t.Fatalf("a watch registered through the follower: want one watching for client:%s\n%s", wcClient, r)
	}
	var listed wcWatches
	r = h.cliEnv(viaFollower, "thread", "watches")
	if r.err != nil || r.code != 0 || json.Unmarshal([]byte(r.stdout), &listed) != nil || len(listed.Watching) != 3 {
		t.Fatalf("thread watches through the follower: want the 3 watches of the home\n%s", r)
	}

	killed := time.Now()
	h.kill()
	a = next(10 * time.Second)
	if a.Role != "primary" || !slices.ContainsFunc(a.Endpoints, func(ep string) bool { return strings.HasPrefix(ep, "unix://") }) {
		t.Fatalf("after the first runtime died the second announced %+v, want it to hold the home's socket", a)
	}
	if took := time.Since(killed); took > 5*time.Second {
		t.Errorf("the takeover took %v", took)
	}

	for _, w := range []wcThread{toThread, toClient, third} {
		h.openGate(w.ID)
	}
	settled := h.settle(20 * time.Second)
	if len(settled.Undeliverable) != 0 {
		t.Errorf("undeliverable: %+v", settled.Undeliverable)
	}
	if got := wcNotices(h.messages(rcpt.ID))[toThread.Link]; len(got) != 1 {
		t.Errorf("the recipient thread got %d notifications, want 1: %+v", len(got), got)
	}
	counts := map[string]int{}
	for _, ev := range h.events() {
		counts[ev.Watch]++
	}
	for _, id := range []string{watchClient.Watch.ID, watchForwarded.Watch.ID} {
		if counts[id] != 1 {
			t.Errorf("the client got %d events of watch %s, want 1 (all: %v)", counts[id], id, counts)
		}
	}
	select {
	case <-exited:
		t.Fatalf("the second runtime exited: %v\n%s", second.ProcessState, stderr)
	default:
	}
}

// serveAnnounce is one line of `serve --json`.
type serveAnnounce struct {
	Role      string   `json:"role"`
	Endpoints []string `json:"endpoints"`
	Pid       int      `json:"pid"`
}
