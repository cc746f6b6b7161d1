package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveAnnounce is one line of `serve --json`.
type serveAnnounce struct {
	Role      string    `json:"role"`
	Endpoints []string  `json:"endpoints"`
	Pid       int       `json:"pid"`
	at        time.Time // when the test read it
}

// wcListener is one `serve --listen 127.0.0.1:0 --json` on the home: it holds the home or
// follows the runtime that does, and announces each role it takes.
type wcListener struct {
	cmd       *exec.Cmd
	exited    chan struct{}
	stderr    *syncBuffer
	announced chan serveAnnounce
	tcp       string // its own listener, from its first announcement
}

// spawnListener starts a listening serve and waits for its first announcement, which must
// give role.
func (h *wcHome) spawnListener(role string) *wcListener {
	h.t.Helper()
	cmd := exec.Command(h.bin, "serve", "--listen", "127.0.0.1:0", "--json")
	cmd.Env, cmd.Dir = h.env(), h.work
	l := &wcListener{cmd: cmd, exited: make(chan struct{}), stderr: &syncBuffer{}, announced: make(chan serveAnnounce, 4)}
	cmd.Stderr = l.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var a serveAnnounce
			if json.Unmarshal(sc.Bytes(), &a) == nil {
				a.at = time.Now()
				l.announced <- a
			}
		}
		_ = cmd.Wait()
		close(l.exited)
	}()
	h.t.Cleanup(func() { l.kill() })
	a := l.next(h.t, role, 20*time.Second)
	for _, ep := range a.Endpoints {
		if strings.HasPrefix(ep, "tcp://") {
			l.tcp = ep
		}
	}
	// A follower serves its own listener only: the home's socket is the holder's.
	if l.tcp == "" || role == "follower" && len(a.Endpoints) != 1 {
		h.t.Fatalf("serve --listen announced %+v, want its TCP endpoint (and only that for a follower)", a)
	}
	return l
}

// next waits for the listener's next announcement and checks its role.
func (l *wcListener) next(t *testing.T, role string, within time.Duration) serveAnnounce {
	t.Helper()
	select {
	case a := <-l.announced:
		if a.Role != role {
			t.Fatalf("serve announced %+v, want role %s\n%s", a, role, l.stderr)
		}
		return a
	case <-l.exited:
		t.Fatalf("serve exited: %v\n%s", l.cmd.ProcessState, l.stderr)
	case <-time.After(within):
		t.Fatalf("serve announced nothing within %v\n%s", within, l.stderr)
	}
	return serveAnnounce{}
}

// kill SIGKILLs the listener, as a crash would, and waits until it is gone.
func (l *wcListener) kill() crashSpan {
	span := crashSpan{killed: time.Now()}
	_ = l.cmd.Process.Signal(syscall.SIGKILL)
	<-l.exited
	span.gone = time.Now()
	return span
}

// alive reports an error when the listener has exited.
func (l *wcListener) alive() error {
	select {
	case <-l.exited:
		return fmt.Errorf("serve exited: %v\n%s", l.cmd.ProcessState, l.stderr)
	default:
		return nil
	}
}

// Scenario: S000-43 (多个 Runtime 共用数据目录) — a dead runtime's watches are taken over once.
// TestWatchTakeoverCrashLoop runs two runtimes on one home, the second following the first,
// and SIGKILLs the one holding the home at random moments while threads start and stop and
// watches are registered (through the home's socket and through either runtime's TCP
// listener) and delivered; the follower takes the home over and a new follower starts. At the
// end every watch ended delivered or undeliverable with a reason, and duplicates only come
// from a crash.
func TestWatchTakeoverCrashLoop(t *testing.T) {
	t.Parallel()
	cycles := crashCycles(t, 20)
	rng := rand.New(rand.NewPCG(crashSeed(t, cycles), 2))

	h := newWCHome(t)
	holder := h.spawnListener("primary")
	var recipients []string
	for i := range 3 {
		recipients = append(recipients, h.delegate("rcpt", fmt.Sprintf("recipient %d", i)).ID)
	}
	recipients = append(recipients, "client:"+wcClient)

	ledger := newCrashLedger()
	var takeovers []time.Duration
	seq := 0
	for c := range cycles {
		follower := h.spawnListener("follower")
		// Each call goes to the holder through the home's socket or to either runtime's TCP
		// listener: the follower forwards it to the holder.
		endpoints := [][]string{nil, {"CODEXHOST_ENDPOINT=" + holder.tcp}, {"CODEXHOST_ENDPOINT=" + follower.tcp}}
		via := func(r *rand.Rand) []string { return endpoints[r.IntN(len(endpoints))] }
		res, crash := runCrashCycle(h, rng, recipients, &seq, via, holder.kill)
		ledger.add(t, c, res, crash)
		a := follower.next(t, "primary", 20*time.Second)
		takeovers = append(takeovers, a.at.Sub(crash.killed))
		if !slices.ContainsFunc(a.Endpoints, func(ep string) bool { return strings.HasPrefix(ep, "unix://") }) {
			t.Fatalf("cycle %d: the follower took over but announced %+v, without the home's socket", c, a)
		}
		holder = follower
	}

	ledger.check(t, h, recipients)
	if err := holder.alive(); err != nil {
		t.Error(err)
	}
	slices.Sort(takeovers)
	t.Logf("takeover from the kill to the follower's announcement: median %v, max %v",
		takeovers[len(takeovers)/2].Round(time.Millisecond), takeovers[len(takeovers)-1].Round(time.Millisecond))
}
