package marker

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/codexhost/codexhost/model"
)

// finish runs the pending polls and waits of a run in the worker pool and reports once. A
// cancelled author abandons the run (no report); a closing runtime leaves it running, so the
// next start resumes it with the same deadlines.
func (e *Engine) finish(ctx context.Context, lr *liveRun) {
	// A copy: Active reads lr.run while the reads go on.
	e.mu.Lock()
	final := lr.run
	final.Outcomes = append([]Outcome(nil), lr.run.Outcomes...)
	e.mu.Unlock()
	run := &final
	author, err := e.opts.Threads.Facts(ctx, string(run.Author))
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(e.opts.Log, "marker run %s: read author: %v\n", run.ID, err)
		author = Facts{ID: string(run.Author)}
	}
	// The reads sleep in the scheduler, not here: they hold a slot only while reading a round.
	principal := author.Principal
	if principal == "" {
		principal = string(run.Author) // unknown: a share of its own, never another's
	}
	jobs := make([]*readJob, len(run.Pending))
	for i, p := range run.Pending {
		jobs[i] = e.sched.submit(ctx, principal, author, p)
	}
	results := make([]Outcome, len(run.Pending))
	for i, j := range jobs {
		select {
		case results[i] = <-j.done:
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		if e.isClosed() {
			return
		}
		run.State, run.UpdatedAt = model.MarkerAbandoned, e.opts.Now()
		if err := e.opts.Store.PutMarkerRun(*run); err != nil {
			fmt.Fprintf(e.opts.Log, "marker run %s: save: %v\n", run.ID, err)
		}
		e.dropNames(run.ID)
		return
	}
	e.mergeReads(run, results)
	run.Pending, run.UpdatedAt = nil, e.opts.Now()
	text := e.reportText(*run)
	switch refused := e.countRefused(*run); {
	case refused > MaxRefusedReports:
		run.State = model.MarkerHeld
		if err := e.opts.Store.PutMarkerRun(*run); err != nil {
			fmt.Fprintf(e.opts.Log, "marker run %s: save: %v\n", run.ID, err)
		}
		e.dropNames(run.ID)
		return
	case refused == MaxRefusedReports:
		text += fmt.Sprintf("\nNone of your blocks ran in the last %d reports; further reports of blocks that do not run are held "+
			"until one of your blocks is accepted again, so that a turn that repeats them does not loop.\n", MaxRefusedReports)
	}
	if err := e.opts.Deliver(*run, text); err != nil {
		fmt.Fprintf(e.opts.Log, "marker run %s: report: %v\n", run.ID, err)
		return
	}
	e.dropNames(run.ID)
}

func (e *Engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// mergeReads adds the read outcomes, keeping a note already made for the same block.
func (e *Engine) mergeReads(run *model.MarkerRun, results []Outcome) {
	for _, r := range results {
		merged := false
		for i := range run.Outcomes {
			if run.Outcomes[i].Seq == r.Seq {
				run.Outcomes[i].Views = r.Views
				merged = true
			}
		}
		if !merged {
			run.Outcomes = append(run.Outcomes, r)
		}
	}
	sort.SliceStable(run.Outcomes, func(i, j int) bool { return run.Outcomes[i].Seq < run.Outcomes[j].Seq })
}

func (e *Engine) reportText(run model.MarkerRun) string {
	e.mu.Lock()
	names := e.names[run.ID]
	e.mu.Unlock()
	outs := append([]Outcome(nil), run.Outcomes...)
	for i := range outs {
		if n, ok := names[outs[i].Seq]; ok {
			outs[i].Name = n
		}
	}
	return Report{Turn: run.Turn, Outcomes: outs, DroppedFences: run.Dropped, Truncated: run.Truncated}.Text()
}

// round reads one round of a poll or wait, in a slot. The first checks the target gates
// (refused targets are settled at once) and, but for a once read, starts hearing the open
// targets' events; each reads every open target together. True when the read is finished:
// every target terminal, its deadline passed, or a once read done.
func (e *Engine) round(j *readJob) bool {
	ctx := j.ctx
	if !j.started {
		j.started = true
		var ids []model.ThreadID
		for i, id := range j.p.Targets {
			s := e.snapshot(ctx, j.author, id)
			if r := CheckTarget(s, id); !r.OK() {
				j.views[i] = ThreadView{ID: id, Refusal: r.Code, Detail: r.Detail}
				continue
			}
			j.open[i] = true
			ids = append(ids, model.ThreadID(id))
		}
		if len(j.open) == 0 {
			return true
		}
		if j.p.Once {
			e.readRound(ctx, j.p, j.views, j.open) // at the deadline: it slept until then
			return true
		}
		e.sched.listen(j, ids)
	}
	e.readRound(ctx, j.p, j.views, j.open)
	e.forgetSettled(j)
	if len(j.open) == 0 || ctx.Err() != nil {
		return true
	}
	if !j.p.Deadline.After(e.opts.Now()) {
		for i := range j.open {
			j.views[i].TimedOut = true
		}
		return true
	}
	return false
}

// onceRecheck is how often the scheduler compares the clock with the next deadline: the
// clock is injected (Options.Now), so a sleep of the whole wait could outlast a clock moved
// ahead.
const onceRecheck = time.Second

// forgetSettled stops hearing the targets no longer open.
func (e *Engine) forgetSettled(j *readJob) {
	still := map[model.ThreadID]bool{}
	for i := range j.open {
		still[model.ThreadID(j.p.Targets[i])] = true
	}
	var settled []model.ThreadID
	for _, id := range e.sched.listened(j) {
		if !still[id] {
			settled = append(settled, id)
		}
	}
	if len(settled) > 0 {
		e.sched.forget(j, settled)
	}
}

// readRound reads every open target concurrently and closes the terminal ones.
func (e *Engine) readRound(ctx context.Context, p model.MarkerPending, views []ThreadView, open map[int]bool) {
	type res struct {
		i       int
		v       ThreadView
		running bool
		err     error
	}
	out := make(chan res, len(open))
	for i := range open {
		go func() {
			v, running, err := e.opts.Threads.View(ctx, p.Targets[i], p.Chars)
			out <- res{i, v, running, err}
		}()
	}
	for range len(open) {
		r := <-out
		switch {
		case r.err != nil && model.IsCode(r.err, model.CodeThreadNotFound):
			views[r.i] = ThreadView{ID: p.Targets[r.i], Refusal: RefuseNotFound, Detail: "the thread no longer exists"}
			delete(open, r.i)
		case r.err != nil:
			views[r.i] = ThreadView{ID: p.Targets[r.i], Refusal: "unreadable", Detail: short(r.err.Error())}
		default:
			r.v.ID = p.Targets[r.i]
			views[r.i] = r.v
			if !r.running {
				delete(open, r.i)
			}
		}
	}
}

// MaxRefusedReports is how many reports in a row an author gets whose blocks all were
// skipped or rejected. Each report starts the author's next turn; an author that writes the
// same refused blocks every turn would otherwise never stop.
const MaxRefusedReports = 3

// countRefused counts the author's runs in a row, this one included, in which no block was
// accepted; a run with an accepted block resets it.
func (e *Engine) countRefused(run model.MarkerRun) int {
	accepted := false
	for _, o := range run.Outcomes {
		accepted = accepted || o.Decision == Accepted
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if accepted {
		delete(e.refused, run.Author)
		return 0
	}
	if e.refused == nil {
		e.refused = map[model.ThreadID]int{}
	}
	e.refused[run.Author]++
	return e.refused[run.Author]
}
