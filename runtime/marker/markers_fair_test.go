package marker_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/hosttest"
)

// Scenario: S002-04 (S002-05) — waits do not hold a poll slot while they sleep, and the slots
// are shared round robin across principals: with 1,000 waits of five principals pending on a
// thread that keeps running, a sixth principal's immediate task-poll is answered while every
// one of the 1,000 is still pending. The time it took is logged, not asserted.
func TestS002_04_ImmediatePollIsNotQueuedBehindPendingWaits(t *testing.T) {
	t.Parallel()
	const principals, authorsEach, waitsEach = 5, 40, 5 // 5 × 40 authors × 5 waits = 1,000
	hs := markerHarnesses()
	hs["long"] = config.Harness{Command: []string{"sh", "-c", "exec sleep 600"}}
	clients := []string{"late"}
	for p := range principals {
		clients = append(clients, fmt.Sprintf("p%d", p))
	}
	th := hosttest.New(t, hosttest.Options{Clients: clients, Harnesses: hs})
	repo := gitRepo(t, t.TempDir(), true)
	late := th.Client("late")
	target := hosttest.Delegate(t, late, api.DelegateStartParams{Harness: "long", Task: "keeps running", Cwd: repo}).Thread.ID
	t.Cleanup(func() { hosttest.CallRaw(t, late, api.MethodThreadCancel, api.ThreadCancelParams{Thread: target}) })

	// Five distinct polls with a timeout (distinct chars: identical blocks are one block).
	var waits strings.Builder
	for i := range waitsEach {
		waits.WriteString(fence("task-poll", fmt.Sprintf(`{"task_id":%q,"interval_seconds":60,"timeout_seconds":3600,"chars":%d}`, target, 200+i)))
	}
	waitDir := filepath.Join(repo, "waits")
	writeBlocks(t, waitDir, waits.String())
	// The principals start their authors at once, as busy clients do.
	errs := make(chan error, principals)
	for p := range principals {
		c := th.Client(fmt.Sprintf("p%d", p))
		go func() {
			for a := range authorsEach {
				task := api.DelegateStartParams{Harness: "author", Task: fmt.Sprintf("wait %d-%d", p, a), Cwd: waitDir}
				if err := c.Call(context.Background(), api.MethodDelegateStart, task, nil); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range principals {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	const want = principals * authorsEach * waitsEach
	hosttest.PollUntil(t, "1,000 pending waits", 120*time.Second, 50*time.Millisecond, func() bool { return th.Markers().PendingReads() >= want })

	pollDir := filepath.Join(repo, "poll")
	writeBlocks(t, pollDir, fence("task-poll", fmt.Sprintf(`{"task_id":%q,"timeout_seconds":0}`, target)))
	start := time.Now()
	author := hosttest.Delegate(t, late, api.DelegateStartParams{Harness: "author", Task: "poll now", Cwd: pollDir}).Thread.ID
	m := &markerEnv{Host: th, c: late, cwd: repo}
	report := m.report(author)
	elapsed := time.Since(start)
	if !strings.Contains(report, "1. task-poll: accepted") || !strings.Contains(report, "codex://threads/"+target+": status") {
		t.Fatalf("report:\n%s", report)
	}
	// Served while the others wait: not one of the 1,000 has finished.
	if n := th.Markers().PendingReads(); n < want {
		t.Fatalf("%d waits pending when the poll was answered, want %d: it queued behind them", n, want)
	}
	t.Logf("immediate task-poll of another principal answered %v after its author started, with %d waits pending", elapsed.Round(time.Millisecond), want)
}

// writeBlocks writes the blocks the author harness prints into dir, made if need be.
func writeBlocks(t *testing.T, dir, blocks string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "blocks.md"), []byte(blocks), 0o600); err != nil {
		t.Fatal(err)
	}
}
