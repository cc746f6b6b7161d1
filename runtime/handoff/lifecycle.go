package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/codexhost/codexhost/model"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// resultFile is a task's evidence, kept in its 0600 result file.
type resultFile struct {
	ChangedFiles []ChangedFile   `json:"changedFiles"`
	Truncated    bool            `json:"snapshotTruncated,omitempty"`
	GitRoot      bool            `json:"gitRoot,omitempty"`
	Tests        []TestResult    `json:"tests,omitempty"`
	Artifacts    []ArtifactCheck `json:"artifacts,omitempty"`
	Violations   []string        `json:"violations,omitempty"`
	Notes        []string        `json:"notes,omitempty"`
	Diff         string          `json:"diff,omitempty"`
	Log          []model.Message `json:"-"`
	Provider     map[string]any  `json:"provider,omitempty"`
}

const maxStoredDiff = 1 << 20

// OnTurnEnd is told of every turn that ended on a native thread; the service finishes the
// task whose turn it is.
func (s *Service) OnTurnEnd(thread model.ThreadID, turnStatus string) {
	switch turnStatus {
	case model.TurnCompleted, model.TurnFailed, model.TurnInterrupted:
	default:
		return
	}
	s.mu.Lock()
	r := s.runs[thread]
	if r == nil || s.closed {
		s.mu.Unlock()
		return
	}
	r.mu.Lock()
	already := r.finishing
	r.finishing = true
	r.mu.Unlock()
	if already {
		s.mu.Unlock()
		return
	}
	s.workers.Add(1)
	s.mu.Unlock()
	r.endOnce.Do(func() { close(r.ended) })
	go s.finish(r, turnStatus)
}

// watchTimeout interrupts the turn once the task's time is up.
func (s *Service) watchTimeout(r *run, timeout time.Duration) {
	defer s.workers.Done()
	select {
	case <-s.opts.After(timeout):
	case <-r.ended:
		return
	case <-r.quit:
		return
	}
	r.mu.Lock()
	r.timedOut = true
	r.mu.Unlock()
	s.trace(TraceEntry{Event: "timedOut", Task: r.id, Decision: "interrupt the turn", Details: map[string]any{"timeoutMs": timeout.Milliseconds()}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.opts.Runner.Interrupt(ctx, r.id); err != nil {
		s.logf("interrupt timed-out task %s: %v\n", r.id, err)
	}
}

// finish gathers the evidence of an ended turn and records the task's outcome.
func (s *Service) finish(r *run, turnStatus string) {
	defer s.workers.Done()
	defer close(r.done)
	defer s.forget(r.id)
	defer r.dir.close()
	r.mu.Lock()
	cancelBy, timedOut := r.cancelBy, r.timedOut
	r.mu.Unlock()
	status, reason := model.TaskCompleted, ""
	switch {
	case cancelBy != "":
		status, reason = model.TaskCancelled, "cancelled by "+cancelBy
	case timedOut:
		status, reason = model.TaskTimedOut, "the task ran past its timeout and its turn was interrupted"
	case turnStatus == model.TurnFailed:
		status, reason = model.TaskFailed, "the turn failed; read the thread for the model's error"
	case turnStatus == model.TurnInterrupted:
		status, reason = model.TaskInterrupted, "the turn was interrupted outside the task (a thread cancel, or the App Server stopped)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res := s.evidence(ctx, r, status)
	if err := writeJSON(s.files.resultPath(r.id), res); err != nil {
		s.logf("task result %s: %v\n", r.id, err)
	}
	now := s.opts.Now()
	if _, err := s.opts.Store.UpdateTask(r.id, func(t *model.TaskRecord) error {
		t.Status, t.Reason, t.EndedAt, t.UpdatedAt = status, reason, now, now
		if cancelBy != "" {
			t.CancelledBy = cancelBy
		}
		return nil
	}); err != nil {
		s.logf("task record %s: %v\n", r.id, err)
	} else if s.opts.Ended != nil {
		s.opts.Ended(r.id, status)
	}
	s.trace(TraceEntry{Event: "ended", Task: r.id, Decision: status, Details: map[string]any{
		"turnStatus": turnStatus, "changedFiles": len(res.ChangedFiles), "violations": len(res.Violations), "tests": len(res.Tests)}})
}

// evidence is what codexhost itself finds after the turn: the test commands it runs when
// run_tests is allowed, then the changed files (with deny-glob violations, the tests' changes
// included) and expected artifacts.
func (s *Service) evidence(ctx context.Context, r *run, status string) resultFile {
	dir := r.place.Dir
	var res resultFile
	afterTurn := takeSnapshot(dir)
	switch {
	case !r.handoff.Allows(model.OpRunTests) && len(r.handoff.TestCommands) > 0:
		res.Notes = append(res.Notes, "test commands were not run: run_tests is not an allowed operation")
	case len(r.handoff.TestCommands) > 0 && status != model.TaskCompleted:
		res.Notes = append(res.Notes, "test commands were not run: the turn did not complete")
	case len(r.handoff.TestCommands) > 0:
		res.Tests = s.runTests(ctx, r)
	}
	final := afterTurn
	if len(res.Tests) > 0 {
		final = takeSnapshot(dir)
	}
	res.ChangedFiles = changes(r.before, final)
	res.Truncated = r.before.truncated || final.truncated
	s.flagDenied(&res, changes(afterTurn, final))
	if _, ok := gitRoot(ctx, dir); ok {
		res.GitRoot = true
		addNumstat(ctx, dir, res.ChangedFiles)
		if d := gitDiff(ctx, dir, res.ChangedFiles); len(d) <= maxStoredDiff {
			res.Diff = d
		}
	}
	res.Artifacts = checkArtifacts(dir, r.handoff.ExpectedArtifacts)
	if r.sandbox.Mode == SandboxReadOnly {
		res.Notes = append(res.Notes, "the task ran read-only (its allowed operations have neither write nor create_artifact): the sandbox refused every write")
		for i := range res.Artifacts {
			if !res.Artifacts[i].Exists {
				res.Artifacts[i].Reason = "not found: the task ran read-only and could not create it"
			}
		}
	}
	return res
}

// flagDenied marks the changed files a deny glob matches as violations, naming those a test
// command changed.
func (s *Service) flagDenied(res *resultFile, byTests []ChangedFile) {
	tested := map[string]bool{}
	for _, f := range byTests {
		tested[f.Path] = true
	}
	globs := Globs(s.policy().DenyGlobs)
	for i := range res.ChangedFiles {
		f := &res.ChangedFiles[i]
		f.ByTests = tested[f.Path]
		if g := globs.Match(f.Path); g != "" {
			f.DeniedBy = g
			v := fmt.Sprintf("%s %s matches deny glob %s", f.Path, f.Change, g)
			if f.ByTests {
				v += " (by a test command)"
			}
			res.Violations = append(res.Violations, v)
		}
	}
}

func (s *Service) runTests(ctx context.Context, r *run) []TestResult {
	te, err := s.opts.Tests()
	if err != nil {
		me := model.AsError(err)
		return []TestResult{{Command: "(all)", ExitCode: -1, Error: "test commands were not run: " + me.Message + " (" + me.Hint + ")"}}
	}
	return runTestsIn(ctx, te, r.sandbox, r.dir, r.handoff.TestCommands, func(i int, tr TestResult) {
		s.trace(TraceEntry{Event: "test", Task: r.id, Decision: fmt.Sprintf("exit %d", tr.ExitCode), Details: map[string]any{"index": i, "durationMs": tr.DurationMs, "timedOut": tr.TimedOut}})
	})
}
