package marker

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/store"
)

// A completed turn's blocks are planned before anything runs: the run is recorded in state
// planned, indexed under its turn (so a turn is planned once), and each creation or control
// block is marked started before it runs and saved with its outcome after. A runtime that
// dies at any point leaves a plan the next start finishes: blocks with an outcome are not
// run again, and one that had started without an outcome is reported as cut short, never
// run twice.

// SkipInterrupted is the code of a creation or control block that was running when the
// runtime stopped: whether it took effect is not known, so it is not run again.
const SkipInterrupted = "interrupted_by_restart"

// Fault points of the crash tests (Options.Fault).
const (
	FaultRunPlanned   = "marker-run-planned"   // the plan is recorded, no block has run
	FaultBlockStarted = "marker-block-started" // a block is marked started, it has not run
)

// TurnCompleted plans the blocks of an author's completed turn and runs them in the
// background: creation and control at once, then polls and waits, then one report. It
// reports whether the turn had blocks to plan; a turn without any is the caller's to settle.
func (e *Engine) TurnCompleted(author model.ThreadID, turn, output string) bool {
	parsed := Parse(output)
	if len(parsed.Blocks) == 0 && parsed.DroppedFences == 0 {
		return false
	}
	id, err := uuid.NewV7()
	if err != nil {
		fmt.Fprintf(e.opts.Log, "marker run of %s: %v\n", author, err)
		return true
	}
	now := e.opts.Now()
	run := model.MarkerRun{ID: id.String(), Author: author, Turn: turn, State: model.MarkerPlanned,
		Dropped: parsed.DroppedFences, Truncated: parsed.Truncated, StartedAt: now, UpdatedAt: now}
	if err := e.opts.Store.PlanMarkerRun(run); err != nil {
		if !errors.Is(err, store.ErrPlanned) {
			// The turn stays in flight in the store: the next start plans it.
			fmt.Fprintf(e.opts.Log, "marker run of %s turn %s: plan: %v\n", author, turn, err)
		}
		return true
	}
	e.fault(FaultRunPlanned)
	e.launch(run, func(ctx context.Context, lr *liveRun) { e.execute(ctx, lr, parsed) })
	return true
}

// launch tracks a run and runs body in the background; nothing once the engine is closed.
func (e *Engine) launch(run model.MarkerRun, body func(context.Context, *liveRun)) {
	ctx, cancel := context.WithCancel(context.Background())
	lr := &liveRun{run: run, cancel: cancel, saved: run.State == model.MarkerRunning}
	if !e.track(lr) {
		cancel()
		return
	}
	go func() {
		defer e.wg.Done()
		defer e.untrack(lr)
		body(ctx, lr)
	}()
}

// resumePlanned finishes a run the last runtime planned: the turn's output is read again
// (the record keeps no content) and parsed as it was, and what has not run runs.
func (e *Engine) resumePlanned(ctx context.Context, lr *liveRun) {
	if e.opts.TurnOutput == nil {
		return
	}
	out, err := e.opts.TurnOutput(ctx, lr.run.Author, lr.run.Turn)
	switch {
	case err != nil && missing(err):
		e.endRun(&lr.run, model.MarkerAbandoned) // the author is gone: nothing to report to
		return
	case err != nil:
		fmt.Fprintf(e.opts.Log, "marker run %s: read the turn's output again: %v\n", lr.run.ID, err)
		return // still planned: the next start tries again
	}
	e.execute(ctx, lr, Parse(out))
}

// step runs one creation or control block of a planned run exactly once: marked started and
// saved, run, then saved with its outcome.
func (e *Engine) step(run *model.MarkerRun, b Block, do func() Outcome) {
	if slices.Contains(run.Started, b.Seq) {
		run.Outcomes = append(run.Outcomes, Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Decision: Skipped, Code: SkipInterrupted,
			Detail: "the runtime stopped while this block ran, so it may or may not have taken effect; it was not run again", Targets: targetsOf(b)})
		e.save(run)
		return
	}
	run.Started = append(run.Started, b.Seq)
	e.save(run)
	e.fault(FaultBlockStarted)
	run.Outcomes = append(run.Outcomes, do())
	e.save(run)
}

// decidedSeqs are the blocks of a run with an outcome already (from before a restart).
func decidedSeqs(run model.MarkerRun) map[int]bool {
	out := map[int]bool{}
	for _, o := range run.Outcomes {
		out[o.Seq] = true
	}
	return out
}

func (e *Engine) save(run *model.MarkerRun) {
	run.UpdatedAt = e.opts.Now()
	if err := e.opts.Store.PutMarkerRun(*run); err != nil {
		fmt.Fprintf(e.opts.Log, "marker run %s: save: %v\n", run.ID, err)
	}
}

// endRun closes a run that will never report.
func (e *Engine) endRun(run *model.MarkerRun, state string) {
	run.State = state
	e.save(run)
	e.dropNames(run.ID)
}

func (e *Engine) fault(point string) {
	if e.opts.Fault != nil {
		e.opts.Fault(point)
	}
}
