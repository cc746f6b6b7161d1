package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// follower is a running `codexhost approvals --follow --json`: its lines as they come.
type follower struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{}
}

func followApprovals(t *testing.T, h *host, token string) *follower {
	t.Helper()
	cmd := exec.Command(bin, "approvals", "--follow", "--json")
	cmd.Dir = h.work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home, "CODEXHOST_CLIENT_TOKEN=" + token}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &follower{more: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f.mu.Lock()
			f.lines = append(f.lines, sc.Text())
			f.mu.Unlock()
			select {
			case f.more <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done; _ = cmd.Wait() })
	return f
}

// waitFor returns the first change line (after the list) about approval id in state.
func (f *follower) waitFor(t *testing.T, id, state string) approvalView {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		for _, a := range f.changes() {
			if a.ID == id && a.State == state {
				return a
			}
		}
		select {
		case <-f.more:
		case <-deadline:
			t.Fatalf("approvals --follow never printed %s as %s: %q", id, state, f.all())
		}
	}
}

func (f *follower) all() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

// changes decodes the {"approval": …} lines that follow the first (the list).
func (f *follower) changes() []approvalView {
	var out []approvalView
	for i, l := range f.all() {
		var ch struct {
			Approval *approvalView `json:"approval"`
		}
		if i > 0 && json.Unmarshal([]byte(l), &ch) == nil && ch.Approval != nil {
			out = append(out, *ch.Approval)
		}
	}
	return out
}

// Issue 28 against the real App Server: `approvals --follow` prints a request as Codex asks
// it and its decision, to its principal's client only; an answer under a stale fencing token
// is refused and changes nothing; a client and the operator answering at once: exactly one
// wins, the other is refused, and Codex gets the winner's decision.
func TestApprovalsFollowedStaleFenceRefusedAndOneOfTwoRacersWins(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{})
	ci, other := h.addClient("ci"), h.addClient("other")
	mine, theirs := followApprovals(t, h, ci), followApprovals(t, h, other)
	th := h.delegate(ci, "--harness", "codex", "--approval", "untrusted", "--task", "[[mode:shell]] [[cmd:echo raced-approval]]")
	a := pendingApproval(t, h, ci, th.Thread.ID)
	mine.waitFor(t, a.ID, "pending")

	if e := h.asClient(ci, "approve", a.ID, "--decision", "accept", "--fence", "7", "--json").failure(t); e.Code != "FAILED_PRECONDITION" {
		t.Fatalf("a stale fence: %+v", e)
	}
	if still := pendingApproval(t, h, ci, th.Thread.ID); still.ID != a.ID || still.State != "pending" {
		t.Fatalf("after a stale fence: %+v", still)
	}

	operatorEnv := []string{"HOME=" + h.cliHome, "CODEXHOST_HOME=" + h.home}
	racers := map[string]func() result{
		"ci":       func() result { return h.asClient(ci, "approve", a.ID, "--decision", "accept", "--json") },
		"operator": func() result { return run(t, h.work, operatorEnv, "approve", a.ID, "--decision", "decline", "--json") },
	}
	results := map[string]result{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for who, answer := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := answer()
			mu.Lock()
			results[who] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	var winner string
	for who, r := range results {
		if r.code == 0 {
			if winner != "" {
				t.Fatalf("both answers won: %v", results)
			}
			winner = who
		} else if !strings.Contains(r.stdout+r.stderr, "FAILED_PRECONDITION") {
			t.Fatalf("the losing answer of %s: %s", who, r)
		}
	}
	if winner == "" {
		t.Fatalf("no answer won: %v", results)
	}
	decided := mine.waitFor(t, a.ID, "answered")
	wantDecision, wantOutput := map[string]string{"ci": "accept", "operator": "decline"}[winner], map[string]string{"ci": "raced-approval", "operator": "rejected"}[winner]
	if decided.Decision != wantDecision || decided.DecidedBy != winner {
		t.Fatalf("%s won, the follower printed %+v", winner, decided)
	}
	h.waitCompleted(ci, th.Thread.ID)
	var last string
	for _, r := range h.fake.Requests() {
		if out, ok := r.ToolOutput(); ok {
			last = out
		}
	}
	if !strings.Contains(strings.ToLower(last), wantOutput) {
		t.Fatalf("%s won with %s; the model got %q", winner, wantDecision, last)
	}
	t.Logf("%s won the race with %s", winner, wantDecision)
	for _, l := range theirs.all() {
		if strings.Contains(l, a.ID) || strings.Contains(l, th.Thread.ID) {
			t.Fatalf("another principal's follower printed %s", l)
		}
	}
}
