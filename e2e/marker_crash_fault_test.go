package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mfAuthorConfig adds author, a harness whose turn prints its task back: a task holding a
// marker block makes a turn whose output holds it.
const mfAuthorConfig = "\n[harnesses.author]\ncommand = [\"cat\"]\n"

// Scenario: S002 (nothing lost at a crash) — the runtime dies right after it learned that a
// turn with a task-create block completed (before the block was read), or right after it
// recorded the turn's plan (before any block ran). After a restart the block has run exactly
// once: one created thread, and one report as the author's next turn, also after a second
// restart.
func TestMarkerBlocksSurviveACrashAtEachFaultPoint(t *testing.T) {
	for _, point := range []string{"marker-turn-completed", "marker-run-planned"} {
		t.Run(point, func(t *testing.T) {
			h := newWCHome(t)
			f, err := os.OpenFile(filepath.Join(h.dir, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(mfAuthorConfig); err != nil {
				t.Fatal(err)
			}
			f.Close()
			s := h.start("CODEXHOST_TEST_FAULT=" + point)
			author := h.delegate("author", "make one\n```task-create\n{\"name\": \"kid\", \"prompt\": \"hello kid\"}\n```\n")
			select {
			case <-s.exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("the runtime did not stop at %s\n%s", point, s.stderr)
			}
			h.serve = nil
			if ws, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the runtime exited with %v, not killed at %s\n%s", s.cmd.ProcessState, point, s.stderr)
			}

			h.start()
			children, reports := mfOutcome(t, h, author.ID, 30*time.Second)
			if children != 1 || reports != 1 {
				t.Fatalf("after the restart: %d created threads and %d reports, want 1 and 1", children, reports)
			}
			h.stop()
			h.start()
			time.Sleep(2 * time.Second) // what a third plan would do, it does at start
			if c, r := mfOutcome(t, h, author.ID, 0); c != 1 || r != 1 {
				t.Fatalf("after a second restart: %d created threads and %d reports, want 1 and 1", c, r)
			}
		})
	}
}

// mfOutcome waits up to timeout for the author's created thread and report, and returns
// how many of each there are.
func mfOutcome(t *testing.T, h *wcHome, author string, timeout time.Duration) (children, reports int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var list struct {
			Threads []wcThread `json:"threads"`
		}
		h.must(&list, "thread", "list", "--parent", author, "--all-cwd")
		children, reports = len(list.Threads), 0
		for _, m := range h.messages(author) {
			if m.Role == "user" && strings.Contains(m.Text, "marker") && strings.Contains(m.Text, "kid") {
				reports++
			}
		}
		if (children >= 1 && reports >= 1) || time.Now().After(deadline) {
			return children, reports
		}
		time.Sleep(200 * time.Millisecond)
	}
}
