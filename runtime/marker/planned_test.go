package marker

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/store"
)

// PlanMarkerRun plans each author turn once, as the store does.
func (s *memStore) PlanMarkerRun(r model.MarkerRun) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, old := range s.runs {
		if old.Author == r.Author && old.Turn == r.Turn {
			return store.ErrPlanned
		}
	}
	s.runs[r.ID] = r
	return nil
}

// createThreads counts the threads created and answers every other call plainly.
type createThreads struct {
	mu      sync.Mutex
	created []string
}

func (c *createThreads) Facts(_ context.Context, id string) (Facts, error) {
	return Facts{ID: id, Project: "/p", Principal: "operator"}, nil
}
func (c *createThreads) View(_ context.Context, id string, _ int) (ThreadView, bool, error) {
	return ThreadView{ID: id, Status: model.ThreadIdle}, false, nil
}
func (c *createThreads) Create(_ context.Context, _ Facts, b Create) (Created, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.created = append(c.created, b.Prompt)
	return Created{ID: fmt.Sprintf("019a0000-0000-7000-8000-%012d", len(c.created)), Harness: "h", Cwd: "/p"}, nil
}
func (c *createThreads) Cancel(context.Context, string) (string, error)     { return "", nil }
func (c *createThreads) Retry(context.Context, string) (string, error)      { return "", nil }
func (c *createThreads) Permission(string, Tool) Permission                 { return Permission{Allowed: true} }
func (c *createThreads) ActiveThreads(context.Context, string) (int, error) { return 0, nil }

func (c *createThreads) prompts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.created...)
}

const plannedOutput = "```task-create\n{\"prompt\":\"one\"}\n```\n```task-create\n{\"prompt\":\"two\"}\n```\n"

// Scenario: S002-01 (S002-10) — a completed turn's blocks run once: the same turn handed over
// twice (its live event and the recovery at a start) is planned once and reported once.
func TestS002_01_ATurnIsPlannedOnce(t *testing.T) {
	t.Parallel()
	threads := &createThreads{}
	reports := make(chan string, 4)
	e := New(Options{Threads: threads, Store: &memStore{runs: map[string]model.MarkerRun{}},
		Deliver: func(_ model.MarkerRun, text string) error { reports <- text; return nil }})
	defer e.Close()
	e.TurnCompleted(wakeAuthor, "turn-1", plannedOutput)
	e.TurnCompleted(wakeAuthor, "turn-1", plannedOutput)
	<-reports
	e.Close()
	if got := threads.prompts(); len(got) != 2 {
		t.Fatalf("created %q, want one thread per block", got)
	}
	if len(reports) != 0 {
		t.Fatalf("a second report: %s", <-reports)
	}
}

// Scenario: S002-01 — a run planned before a crash finishes at the next start: a block with an
// outcome is kept, one that had started without an outcome is reported as cut short and not
// run again, and the blocks that had not started run, all in one report.
func TestS002_01_APlannedRunResumesWithoutRunningABlockTwice(t *testing.T) {
	t.Parallel()
	threads := &createThreads{}
	st := &memStore{runs: map[string]model.MarkerRun{}}
	output := plannedOutput + "```task-create\n{\"prompt\":\"three\"}\n```\n"
	// As the last runtime left it: block 1 created, block 2 started, block 3 not yet.
	st.runs["run-1"] = model.MarkerRun{ID: "run-1", Author: wakeAuthor, Turn: "turn-1", State: model.MarkerPlanned,
		Started: []int{1, 2}, Outcomes: []Outcome{{Seq: 1, Info: "task-create", Tool: ToolCreate, Decision: Accepted,
			Created: &Created{ID: "019a0000-0000-7000-8000-0000000000d1", Harness: "h", Cwd: "/p"}}}}
	reports := make(chan string, 2)
	e := New(Options{Threads: threads, Store: st,
		Deliver:    func(_ model.MarkerRun, text string) error { reports <- text; return nil },
		TurnOutput: func(context.Context, model.ThreadID, string) (string, error) { return output, nil }})
	defer e.Close()
	if err := e.Resume(); err != nil {
		t.Fatal(err)
	}
	r := <-reports
	if got := threads.prompts(); len(got) != 1 || got[0] != "three" {
		t.Fatalf("created %q after the restart, want only the block that had not started", got)
	}
	for _, want := range []string{"1. task-create: accepted", "2. task-create: skipped (" + SkipInterrupted + ")", "3. task-create: accepted"} {
		if !strings.Contains(r, want) {
			t.Fatalf("report lacks %q:\n%s", want, r)
		}
	}
}
