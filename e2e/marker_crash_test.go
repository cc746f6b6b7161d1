package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The marker crash tests: an author in a git repository whose gated turn prints two
// task-create blocks. Each completed turn's blocks must run exactly once and be reported
// once, whenever the runtime is killed.

// mcAuthor waits for its gate, then prints the blocks of its cwd; a report turn is answered
// without blocks, so the loop ends.
const mcAuthor = `p=$(cat)
case "$p" in *"codexhost marker report"*) echo "report received"; exit 0;; esac
while [ ! -e "$WC_GATES/$CODEXHOST_THREAD_ID" ]; do sleep 0.02; done
cat blocks.md
`

const mcBlocks = "```task-create\n{\"name\":\"first\",\"prompt\":\"first child\",\"harness\":\"rcpt\"}\n```\n" +
	"```task-create\n{\"name\":\"second\",\"prompt\":\"second child\",\"harness\":\"rcpt\"}\n```\n"

type mcHome struct {
	*wcHome
	repo string
}

func newMCHome(t *testing.T) *mcHome {
	t.Helper()
	h := &mcHome{wcHome: newWCHome(t), repo: filepath.Join(t.TempDir(), "repo")}
	script := filepath.Join(h.dir, "author.sh")
	if err := os.WriteFile(script, []byte(mcAuthor), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.OpenFile(filepath.Join(h.dir, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintf(cfg, "\n[harnesses.author]\ncommand = [\"sh\", %q]\nenv = { WC_GATES = %q }\n", script, h.gates)
	if cerr := cfg.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(h.repo, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-C", h.repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(h.repo, "blocks.md"), []byte(mcBlocks), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// author starts a gated author in the repository.
func (h *mcHome) author(task string) wcThread {
	h.t.Helper()
	var res struct{ Thread wcThread }
	h.must(&res, "delegate", "start", "--harness", "author", "--task", task, "--cwd", h.repo)
	return res.Thread
}

// reports are the marker reports the author received.
func (h *mcHome) reports(id string) []string {
	h.t.Helper()
	var out []string
	for _, m := range h.messages(id) {
		if m.Role == "user" && strings.Contains(m.Text, "codexhost marker report") {
			out = append(out, m.Text)
		}
	}
	return out
}

// children counts the threads the author's blocks created.
func (h *mcHome) children(id string) int {
	h.t.Helper()
	var res struct {
		Threads []wcThread `json:"threads"`
	}
	h.must(&res, "thread", "list", "--parent", id, "--all-cwd", "--limit", "100")
	return len(res.Threads)
}

// waitIdle waits for the thread's current turn, if any, to end.
func (h *mcHome) waitIdle(id string) {
	h.t.Helper()
	var res struct {
		TimedOut bool `json:"timedOut"`
	}
	h.must(&res, "thread", "wait", id, "--timeout-ms", "20000")
	if res.TimedOut {
		h.t.Fatalf("%s: its turn did not end within 20 s", id)
	}
}

func (h *mcHome) firstTurn(id string) string {
	h.t.Helper()
	var res struct{ Thread wcThread }
	h.must(&res, "thread", "read", id)
	if res.Thread.LastTurn == nil {
		return ""
	}
	return res.Thread.LastTurn.Status
}

// checkOnce checks an author whose turn completed: one report, and one thread per accepted
// task-create of it; an author whose turn did not complete: no report, no thread.
func (h *mcHome) checkOnce(a wcThread, completed bool) {
	h.t.Helper()
	reports, children := h.reports(a.ID), h.children(a.ID)
	if !completed {
		if len(reports) != 0 || children != 0 {
			h.t.Errorf("%s: its turn did not complete, yet %d reports and %d created threads", a.ID, len(reports), children)
		}
		return
	}
	// The report is queued once; a crash after the notification path sent it and before it
	// recorded that sends the same report again (TestWatchFaultPoints, after-delivery-sent).
	// A second plan of the turn would be another report.
	if len(reports) == 0 || len(slices.Compact(slices.Clone(reports))) != 1 {
		h.t.Errorf("%s: %d reports, want one (copies of it only from a crash in its delivery): %q", a.ID, len(reports), reports)
		return
	}
	// A create cut short by a crash may or may not have made its thread; it is never run again.
	accepted, cut := strings.Count(reports[0], ": accepted"), strings.Count(reports[0], "(interrupted_by_restart)")
	if children < accepted || children > accepted+cut {
		h.t.Errorf("%s: %d created threads, the report says %d were created and %d cut short:\n%s", a.ID, children, accepted, cut, reports[0])
	}
}

// waitReport waits until the author has its report.
func (h *mcHome) waitReport(id string, within time.Duration) {
	h.t.Helper()
	deadline := time.Now().Add(within)
	for len(h.reports(id)) == 0 {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: no marker report within %v of the restart", id, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Scenario: S002-01 (S002-10) — the runtime is killed exactly between a completed turn and
// its blocks (the completion heard, nothing planned; the plan recorded, no block run; a block
// begun, not finished): after the restart the blocks run once, the one cut short is reported
// as such and not run again, and exactly one report comes, also after another restart.
func TestMarkerFaultPoints(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		point    string
		children int
	}{
		{"marker-turn-completed", 2},
		{"marker-run-planned", 2},
		{"marker-block-started", 1}, // the first create was cut short
	} {
		t.Run(c.point, func(t *testing.T) {
			h := newMCHome(t)
			s := h.start("CODEXHOST_TEST_FAULT=" + c.point)
			a := h.author("fault " + c.point)
			h.openGate(a.ID)
			select {
			case <-s.exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("the runtime did not stop at %s\n%s", c.point, s.stderr)
			}
			h.serve = nil
			if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the runtime exited with %v, not killed at %s\n%s", s.cmd.ProcessState, c.point, s.stderr)
			}
			transcript, err := os.ReadFile(filepath.Join(h.dir, "transcripts", a.ID+".jsonl"))
			if err != nil || !strings.Contains(string(transcript), "task-create") || strings.Contains(string(transcript), "codexhost marker report") {
				t.Fatalf("the author's transcript at the crash (%v): the turn should have completed, unreported\n%s", err, transcript)
			}

			h.start()
			h.waitReport(a.ID, 30*time.Second)
			h.waitIdle(a.ID) // the report's own turn may still run
			if st := h.firstTurn(a.ID); st != "completed" {
				t.Fatalf("the author's last turn is %s", st)
			}
			h.checkOnce(a, true)
			if n := h.children(a.ID); n != c.children {
				t.Errorf("%d created threads, want %d", n, c.children)
			}
			if c.children == 1 && !strings.Contains(h.reports(a.ID)[0], "skipped (interrupted_by_restart)") {
				t.Errorf("the report does not say the first block was cut short:\n%s", h.reports(a.ID)[0])
			}
			h.stop()
			h.start()
			time.Sleep(500 * time.Millisecond) // a second plan, if there were one, has its chance
			h.checkOnce(a, true)
			if n := h.children(a.ID); n != c.children {
				t.Errorf("after another restart: %d created threads, want %d", n, c.children)
			}
		})
	}
}

// Scenario: S002-01 (S002-10) — the crash loop of marker blocks: authors' turns complete and
// the runtime is SIGKILLed a random 0–80 ms after their gates open, again and again; in every
// other cycle the kill comes instead 0–40 ms after the first author's transcript shows its
// turn completed, the moment a completed turn's blocks used to be lost. In the end every
// author whose turn completed has exactly one report and one thread per create it reports,
// and an author whose turn the crash cut short has neither.
func TestMarkerCrashLoop(t *testing.T) {
	t.Parallel()
	cycles := crashCycles(t, 6)
	rng := rand.New(rand.NewPCG(crashSeed(t, cycles), 2))
	h := newMCHome(t)
	var authors []wcThread
	justCompleted := map[string]time.Duration{} // killed this long after its turn was seen completed
	for c := range cycles {
		h.start()
		var batch []wcThread
		for i := range 3 {
			batch = append(batch, h.author(fmt.Sprintf("loop %d-%d", c, i)))
		}
		for _, a := range batch {
			h.openGate(a.ID)
		}
		if c%2 == 0 {
			seen := h.waitTurnCompleted(batch[0].ID, 20*time.Second)
			time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
			justCompleted[batch[0].ID] = time.Since(seen)
		} else {
			time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
		}
		h.kill()
		authors = append(authors, batch...)
	}
	h.start()
	// A turn that completed is never left without its report; one with a report completed (a
	// later crash may have cut the report's own turn short).
	completed := map[string]bool{}
	for _, a := range authors {
		completed[a.ID] = h.firstTurn(a.ID) == "completed" || len(h.reports(a.ID)) > 0
		if _, ok := justCompleted[a.ID]; ok && !completed[a.ID] {
			t.Errorf("%s: its turn was seen completed before the kill, yet it reads %q with no report", a.ID, h.firstTurn(a.ID))
		}
		if completed[a.ID] {
			h.waitReport(a.ID, 30*time.Second)
		}
	}
	h.stop()
	h.start()
	time.Sleep(500 * time.Millisecond)
	n := 0
	for _, a := range authors {
		h.checkOnce(a, completed[a.ID])
		if completed[a.ID] {
			n++
		}
	}
	t.Logf("%d of %d author turns completed before their crash; killed after a seen completion: %v", n, len(authors), justCompleted)
}

// waitTurnCompleted waits until the author's transcript has its first turn ended completed
// and returns when that was seen.
func (h *mcHome) waitTurnCompleted(id string, within time.Duration) time.Time {
	h.t.Helper()
	deadline := time.Now().Add(within)
	for {
		raw, _ := os.ReadFile(filepath.Join(h.dir, "transcripts", id+".jsonl"))
		for line := range strings.Lines(string(raw)) {
			var e struct{ Type, Status string }
			if json.Unmarshal([]byte(line), &e) == nil && e.Type == "turnEnded" && e.Status == "completed" {
				return time.Now()
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s: its turn did not complete within %v\n%s", id, within, raw)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
