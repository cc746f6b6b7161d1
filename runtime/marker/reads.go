package marker

import (
	"context"
	"fmt"
	"sort"
	"sync"
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
	results := make([]Outcome, len(run.Pending))
	var wg sync.WaitGroup
	for i, p := range run.Pending {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.Once && !e.sleepUntil(ctx, p.Deadline) {
				return // a once read sleeps without a slot
			}
			select {
			case e.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-e.slots }()
			results[i] = e.read(ctx, author, p)
		}()
	}
	wg.Wait()
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

// read runs one poll or wait: targets that fail the target gate are settled at once; the rest
// are read together each round until every one is terminal or the deadline passes.
func (e *Engine) read(ctx context.Context, author Facts, p model.MarkerPending) Outcome {
	o := Outcome{Seq: p.Seq, Info: p.Info, Tool: p.Tool, Decision: Accepted, Targets: p.Targets}
	views := make([]ThreadView, len(p.Targets))
	open := map[int]bool{}
	for i, id := range p.Targets {
		s := e.snapshot(ctx, author, id)
		if r := CheckTarget(s, id); !r.OK() {
			views[i] = ThreadView{ID: id, Refusal: r.Code, Detail: r.Detail}
			continue
		}
		open[i] = true
	}
	if p.Once {
		if len(open) > 0 {
			e.readRound(ctx, p, views, open) // at the deadline: finish slept until it
		}
		o.Views = views
		return o
	}
	var ids []string
	for i := range open {
		ids = append(ids, p.Targets[i])
	}
	w := e.listen(ids)
	defer e.forget(w)
	for len(open) > 0 {
		e.readRound(ctx, p, views, open)
		e.forgetSettled(w, p.Targets, open)
		if len(open) == 0 || ctx.Err() != nil {
			break
		}
		left := p.Deadline.Sub(e.opts.Now())
		if left <= 0 {
			for i := range open {
				views[i].TimedOut = true
			}
			break
		}
		timer := time.NewTimer(min(left, p.Interval))
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
	o.Views = views
	return o
}

// onceRecheck is how often a once read compares the clock with its deadline: the clock is
// injected (Options.Now), so a sleep of the whole wait could outlast a clock moved ahead.
const onceRecheck = time.Second

// sleepUntil waits until Now reaches deadline, events or not; false when ctx ends first.
func (e *Engine) sleepUntil(ctx context.Context, deadline time.Time) bool {
	for {
		left := deadline.Sub(e.opts.Now())
		if left <= 0 {
			return true
		}
		timer := time.NewTimer(min(left, onceRecheck))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
		}
	}
}

// forgetSettled stops listening to the targets no longer open.
func (e *Engine) forgetSettled(w *waiter, targets []string, open map[int]bool) {
	var settled []model.ThreadID
	for _, id := range w.threads {
		still := false
		for i := range open {
			still = still || targets[i] == string(id)
		}
		if !still {
			settled = append(settled, id)
		}
	}
	if len(settled) > 0 {
		e.forget(w, settled...)
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
