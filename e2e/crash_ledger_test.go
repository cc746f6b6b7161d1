package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment of the crash loops. CI runs a few cycles of each; bench/watch-crash.sh runs
// more. A seed from a failed run's log replays its choices (not the timing).
const (
	envCrashCycles = "CODEXHOST_CRASH_CYCLES"
	envCrashSeed   = "CODEXHOST_CRASH_SEED"
)

// crashCycles is CODEXHOST_CRASH_CYCLES, or def.
func crashCycles(t *testing.T, def int) int {
	t.Helper()
	v := os.Getenv(envCrashCycles)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", envCrashCycles, v)
	}
	return n
}

// crashSeed is CODEXHOST_CRASH_SEED, or a new seed; it is logged either way.
func crashSeed(t *testing.T, cycles int) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(envCrashSeed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want an unsigned integer", envCrashSeed, v)
		}
		seed = n
	}
	t.Logf("seed %d, %d cycles (replay: %s=%d %s=%d)", seed, cycles, envCrashSeed, seed, envCrashCycles, cycles)
	return seed
}

// crashSpan is one crash: from the SIGKILL to the moment its process was gone. A notification
// may reach its recipient twice only across a crash: the dying runtime sent it but did not
// record that, and the next holder of the home sent it again.
type crashSpan struct{ killed, gone time.Time }

// crashLedger is what a crash loop did over all its cycles.
type crashLedger struct {
	cycles    int
	threads   map[string]wcThread // by link
	gated     map[string]bool     // thread id → runs until its gate opens
	short     map[wcPair]bool
	confirmed map[wcPair]string // → the watch id the runtime answered
	uncertain map[wcPair]bool
	crashes   []crashSpan
}

func newCrashLedger() *crashLedger {
	return &crashLedger{threads: map[string]wcThread{}, gated: map[string]bool{}, short: map[wcPair]bool{},
		confirmed: map[wcPair]string{}, uncertain: map[wcPair]bool{}}
}

// add records one cycle and the crash that ended it.
func (l *crashLedger) add(t *testing.T, cycle int, res wcCycle, crash crashSpan) {
	t.Helper()
	l.cycles++
	l.crashes = append(l.crashes, crash)
	for _, p := range res.problems {
		t.Errorf("cycle %d: %s", cycle, p)
	}
	for _, th := range res.threads {
		l.threads[th.Link] = th
		l.gated[th.ID] = res.gated[th.ID]
	}
	for p, id := range res.confirmed {
		if old, ok := l.confirmed[p]; ok && old != id {
			t.Errorf("pair %v has two watches %s and %s", p, old, id)
		}
		l.confirmed[p] = id
	}
	for p := range res.uncertain {
		l.uncertain[p] = true
	}
	for p := range res.short {
		l.short[p] = true
	}
}

// crashFigures are the totals of a crash loop.
type crashFigures struct {
	cycles, dueCrashes, threads, registered, delivered, undeliverable, cut, duplicates, lost int
}

func (f crashFigures) String() string {
	return fmt.Sprintf("%d cycles (%d crashes with notifications due), %d threads, %d watches registered: %d delivered, %d undeliverable, %d lost; %d registrations cut by a crash; %d duplicate deliveries",
		f.cycles, f.dueCrashes, f.threads, f.registered, f.delivered, f.undeliverable, f.lost, f.cut, f.duplicates)
}

// check lets every thread stop, waits until every watch settled, and checks each watch the
// loop registered: delivered or undeliverable with a reason, each copy telling the thread's
// real outcome, a second copy only across a crash, and nothing delivered that nobody asked for.
func (l *crashLedger) check(t *testing.T, h *wcHome, recipients []string) crashFigures {
	t.Helper()
	for id, g := range l.gated {
		if g {
			h.openGate(id)
		}
	}
	settled := h.settle(45 * time.Second) // a notification refused as busy before the last crash waits out BusyRetry (30 s)
	d := readDeliveries(t, h, recipients)
	final := l.finalTurns(t, h)
	undeliverable := map[string]wcWatch{}
	for _, w := range settled.Undeliverable {
		undeliverable[w.ID] = w
		if w.Reason == "" {
			t.Errorf("undeliverable watch without a reason: %+v", w)
		}
	}
	f := crashFigures{cycles: l.cycles, threads: len(l.threads), registered: len(l.confirmed), cut: len(l.uncertain)}
	first := map[wcPair]time.Time{} // a watch's first notification
	for p, id := range l.confirmed {
		ns := d.of(l, p, id)
		for _, n := range ns {
			if at, ok := first[p]; !ok || n.at.Before(at) {
				first[p] = n.at
			}
		}
		u, isUndeliverable := undeliverable[id]
		switch {
		case len(ns) > 0:
			f.delivered++
		case isUndeliverable:
			f.undeliverable++
			t.Logf("watch %s undeliverable: %s", id, u.Reason)
		default:
			f.lost++
			t.Errorf("watch %s %v was lost: neither delivered nor undeliverable", id, p)
		}
		f.duplicates += l.checkCopies(t, p, ns, final)
	}
	for p := range l.uncertain {
		f.duplicates += l.checkCopies(t, p, d.of(l, p, ""), final)
	}
	l.checkUnasked(t, d)
	f.dueCrashes = l.dueCrashes(final, first)
	if f.duplicates > f.cycles {
		t.Errorf("%d duplicate deliveries for %d crashes", f.duplicates, f.cycles)
	}
	if f.registered < f.cycles/2 {
		t.Errorf("only %d watches were registered in %d cycles: the loop did not exercise the engine", f.registered, f.cycles)
	}
	t.Log(f)
	return f
}

// turnEnd is how a thread's one turn ended, and when.
type turnEnd struct {
	status string
	at     time.Time
}

// finalTurns is how each thread's one turn ended, by link.
func (l *crashLedger) finalTurns(t *testing.T, h *wcHome) map[string]turnEnd {
	t.Helper()
	final := map[string]turnEnd{}
	for link, th := range l.threads {
		var res struct{ Thread wcThread }
		h.must(&res, "thread", "read", th.ID)
		turn := res.Thread.LastTurn
		if turn == nil {
			t.Errorf("thread %s has no turn", th.ID)
			continue
		}
		end := turnEnd{status: turn.Status}
		if turn.CompletedAt != nil {
			end.at = *turn.CompletedAt
		}
		final[link] = end
	}
	return final
}

// dueCrashes counts the crashes that came while a notification was due: its thread had
// stopped before the kill and the notification reached the recipient only after it. Those
// crashes are the ones that can cut a delivery.
func (l *crashLedger) dueCrashes(final map[string]turnEnd, first map[wcPair]time.Time) int {
	n := 0
	for _, c := range l.crashes {
		for p, at := range first {
			stop := final[wcThreadByID(l.threads, p.thread).Link].at
			if !stop.IsZero() && stop.Before(c.killed) && at.After(c.killed) {
				n++
				break
			}
		}
	}
	return n
}

// checkCopies checks the notifications of one pair and returns how many were duplicates:
// only a recipient thread's, whose notification turn and its record cannot be one write.
func (l *crashLedger) checkCopies(t *testing.T, p wcPair, ns []wcNotice, final map[string]turnEnd) int {
	t.Helper()
	th := wcThreadByID(l.threads, p.thread)
	slices.SortFunc(ns, func(a, b wcNotice) int { return a.at.Compare(b.at) })
	for i, n := range ns {
		if !wcResultFits(n, final[th.Link].status, l.short[p]) {
			t.Errorf("watch %v reported %q (%s); the thread's turn ended %q", p, n.result, n.reason, final[th.Link].status)
		}
		if i == 0 {
			continue
		}
		if strings.HasPrefix(p.notify, "client:") {
			// The event is appended in the same transaction that records the delivery.
			t.Errorf("watch %v has %d client events: a crash cannot repeat one", p, len(ns))
			break
		}
		prev := ns[i-1].at
		if !slices.ContainsFunc(l.crashes, func(c crashSpan) bool { return c.gone.After(prev) && c.killed.Before(n.at) }) {
			t.Errorf("watch %v delivered at %v and again at %v with no crash in between", p, prev, n.at)
		}
	}
	return max(0, len(ns)-1)
}

// checkUnasked checks that nothing arrived that nobody asked for.
func (l *crashLedger) checkUnasked(t *testing.T, d crashDeliveries) {
	t.Helper()
	for r, byLink := range d.toThreads {
		for link := range byLink {
			th, ok := l.threads[link]
			p := wcPair{th.ID, r}
			if _, known := l.confirmed[p]; !ok || (!known && !l.uncertain[p]) {
				t.Errorf("recipient %s was notified about %s, which it did not watch", r, link)
			}
		}
	}
	for id, link := range d.clientLink {
		p := wcPair{l.threads[link].ID, "client:" + wcClient}
		if l.confirmed[p] != id && !l.uncertain[p] {
			t.Errorf("client event for watch %s on %s, which was not registered", id, link)
		}
	}
}

// crashDeliveries is what the watches of a crash loop delivered, read back from the home.
type crashDeliveries struct {
	toThreads  map[string]map[string][]wcNotice // recipient → thread link → notices
	toClient   map[string][]wcNotice            // watch id → notices
	clientLink map[string]string                // watch id → thread link
}

// readDeliveries reads the recipients' notification turns and the client's events.
func readDeliveries(t *testing.T, h *wcHome, recipients []string) crashDeliveries {
	t.Helper()
	d := crashDeliveries{toThreads: map[string]map[string][]wcNotice{}, toClient: map[string][]wcNotice{}, clientLink: map[string]string{}}
	for _, r := range recipients {
		if strings.HasPrefix(r, "client:") {
			continue
		}
		msgs := h.messages(r)
		for _, m := range msgs {
			if strings.Contains(m.Text, "wc-task-") {
				t.Errorf("a message of recipient %s quotes a watched thread's task: %q", r, m.Text)
			}
		}
		d.toThreads[r] = wcNotices(msgs)
	}
	for _, ev := range h.events() {
		if ev.Type != "watch.notification" {
			t.Errorf("unexpected client event %+v", ev)
			continue
		}
		d.toClient[ev.Watch] = append(d.toClient[ev.Watch], wcNotice{at: ev.At, result: ev.Result, reason: ev.Reason})
		d.clientLink[ev.Watch] = ev.Link
	}
	return d
}

// of returns the notices of a pair: for a client, of the watch id, or when the registration
// was cut by a crash (no id), of any watch of the thread.
func (d crashDeliveries) of(l *crashLedger, p wcPair, watchID string) []wcNotice {
	th := wcThreadByID(l.threads, p.thread)
	if !strings.HasPrefix(p.notify, "client:") {
		return slices.Clone(d.toThreads[p.notify][th.Link])
	}
	if watchID != "" {
		return slices.Clone(d.toClient[watchID])
	}
	var out []wcNotice
	for id, link := range d.clientLink {
		if link == th.Link {
			out = append(out, d.toClient[id]...)
		}
	}
	return out
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

func wcThreadByID(threads map[string]wcThread, id string) wcThread {
	for _, th := range threads {
		if th.ID == id {
			return th
		}
	}
	return wcThread{}
}
