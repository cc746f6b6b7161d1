package marker

import (
	"context"
	"errors"
	"fmt"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/store"
)

// execute runs one planned turn's blocks: creation and control now, each exactly once,
// polls and waits durably after. What already has an outcome (before a restart) is kept.
func (e *Engine) execute(ctx context.Context, lr *liveRun, parsed Parsed) {
	run := &lr.run
	author, err := e.opts.Threads.Facts(ctx, string(run.Author))
	switch {
	case err != nil && missing(err):
		e.endRun(run, model.MarkerAbandoned)
		return
	case err != nil:
		// Still planned: the next start tries again.
		fmt.Fprintf(e.opts.Log, "marker run of %s: read author: %v\n", run.Author, err)
		return
	case author.Leaf:
		e.refuseLeaf(*run, parsed)
		e.endRun(run, model.MarkerNotRun)
		return
	case author.Goal:
		e.endRun(run, model.MarkerNotRun) // goal threads never run blocks
		return
	}
	decided := decidedSeqs(*run)
	for _, o := range SkippedOutcomes(parsed) {
		if !decided[o.Seq] {
			run.Outcomes = append(run.Outcomes, o)
		}
	}
	for _, b := range parsed.Blocks {
		if b.Create != nil { // skipped ones too: a duplicate or over-limit block shows its name
			e.rememberName(run.ID, b.Seq, b.Create.Name)
		}
	}
	plan := Plan(parsed)
	e.createRound(ctx, run, author, plan, decided)
	for _, b := range plan {
		switch {
		case decided[b.Seq] || b.Tool == ToolCreate:
		case b.Tool == ToolPoll || b.Tool == ToolWait:
			e.queueRead(run, b)
		case ctx.Err() != nil && e.isClosed():
			return // the runtime is stopping: the plan stays, and the next start goes on
		case ctx.Err() != nil:
			// The author was cancelled: what has not run is abandoned.
			run.Outcomes = append(run.Outcomes, Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Decision: Skipped, Code: SkipAbandoned, Targets: targetsOf(b)})
		case b.Tool == ToolCancel || b.Tool == ToolRetry:
			e.step(run, b, func() Outcome { return e.control(ctx, author, b) })
		}
	}
	if ctx.Err() != nil && e.isClosed() {
		return
	}
	e.audit(*run, parsed)
	if err := e.saveNames(run.ID); err != nil {
		fmt.Fprintf(e.opts.Log, "marker run %s: names: %v\n", run.ID, err)
	}
	run.State = model.MarkerRunning
	e.save(run)
	e.mu.Lock()
	lr.saved = true
	e.mu.Unlock()
	e.finish(ctx, lr)
}

// refuseLeaf audits every block of a handoff task's turn as refused. Nothing runs and no
// report is delivered: a report would start another turn on the task's thread.
func (e *Engine) refuseLeaf(run model.MarkerRun, parsed Parsed) {
	for _, b := range parsed.Blocks {
		run.Outcomes = append(run.Outcomes, Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Decision: Rejected, Code: RefuseLeaf,
			Detail: "handoff tasks are leaves: their marker blocks are refused", Targets: targetsOf(b)})
	}
	e.audit(run, parsed)
}

// createRound checks the principal's quota once, then runs each creation not decided yet
// behind the generation and direct-children guards, each exactly once.
func (e *Engine) createRound(ctx context.Context, run *model.MarkerRun, author Facts, plan []Block, decided map[int]bool) {
	var creates []Block
	for _, b := range plan {
		if b.Tool == ToolCreate && !decided[b.Seq] {
			creates = append(creates, b)
		}
	}
	if len(creates) == 0 {
		return
	}
	quotaHit := ""
	if n, err := e.opts.Threads.ActiveThreads(ctx, author.Principal); err != nil {
		quotaHit = "the quota of your principal could not be checked: " + err.Error()
	} else if q := e.opts.Quota(); n >= q {
		quotaHit = fmt.Sprintf("your principal has %d running threads; the quota is %d, so this creation round was skipped", n, q)
	}
	gen := e.generation(author)
	for _, b := range creates {
		e.rememberName(run.ID, b.Seq, b.Create.Name)
		if ctx.Err() != nil && e.isClosed() {
			return // the plan stays for the next start
		}
		e.step(run, b, func() Outcome { return e.create(ctx, run.Turn, author, gen, quotaHit, b) })
	}
}

// create runs one task-create block behind the quota, generation and children guards.
func (e *Engine) create(ctx context.Context, turn string, author Facts, gen int, quotaHit string, b Block) Outcome {
	o := Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Name: b.Create.Name}
	if quotaHit != "" {
		o.Decision, o.Code, o.Detail = Skipped, RefuseQuota, quotaHit
		return o
	}
	if ctx.Err() != nil {
		o.Decision, o.Code = Skipped, SkipAbandoned
		return o
	}
	children, err := e.opts.Store.MarkerChildren(model.ThreadID(author.ID))
	if err != nil {
		children = MaxDirectChildren // unknown: fail closed
	}
	if r := CheckCreate(gen, children); !r.OK() {
		o.Decision, o.Code, o.Detail = Skipped, r.Code, r.Detail
		return o
	}
	c, err := e.opts.Threads.Create(ctx, author, *b.Create)
	if c.ID != "" {
		// A thread exists (its first turn may have failed): it counts, and its worktree is
		// kept in the record for archive and prune.
		e.recordChild(turn, author, gen, c)
	}
	switch {
	case err == nil:
		o.Decision, o.Created = Accepted, &c
	case model.IsCode(err, model.CodeFailedPrecondition):
		// The hint is what to write instead (the harnesses there are, say): the agent reads it.
		me := model.AsError(err)
		o.Decision, o.Code, o.Detail = Rejected, "create_refused", me.Message
		if me.Hint != "" {
			o.Detail += " (" + me.Hint + ")"
		}
	default:
		o.Decision, o.Code, o.Detail = Rejected, "create_failed", short(err.Error())
	}
	return o
}

// recordChild keeps the marker-creation record of a created thread, with its worktree.
func (e *Engine) recordChild(turn string, author Facts, gen int, c Created) {
	child := model.MarkerChild{Child: model.ThreadID(c.ID), Parent: model.ThreadID(author.ID), Turn: turn, Generation: gen + 1,
		CreatedAt: e.opts.Now(), Repo: c.Repo, Worktree: c.Worktree, Branch: c.Branch}
	if err := e.opts.Store.PutMarkerChild(child); err != nil {
		fmt.Fprintf(e.opts.Log, "marker child %s: %v\n", c.ID, err)
	}
}

// generation is the author's marker generation: Generation over its whole chain of
// origins, marker creations and delegations alike, so a delegation in between does not
// reset the count. A lookup that fails counts as the limit (fail closed).
func (e *Engine) generation(author Facts) int {
	s := Snapshot{Author: author, Threads: map[string]Facts{}}
	id := model.ThreadID(author.ID)
	for step := 0; step < MaxChainSteps && id != ""; step++ {
		if _, seen := s.Threads[string(id)]; seen {
			break // a cycle: each thread counts once
		}
		f := Facts{ID: string(id)}
		c, err := e.opts.Store.MarkerChild(id)
		switch {
		case err == nil:
			f.MarkerCreated, f.Parent = true, string(c.Parent)
		case !missing(err):
			return MaxGeneration
		case e.opts.ParentOf != nil:
			parent, err := e.opts.ParentOf(id)
			if err != nil && !missing(err) {
				return MaxGeneration
			}
			f.Parent = string(parent)
		}
		s.Threads[f.ID] = f
		id = model.ThreadID(f.Parent)
	}
	return Generation(s, author.ID)
}

// missing says a record lookup found nothing, which ends the chain (any other error does not).
func missing(err error) bool {
	return errors.Is(err, store.ErrNotFound) || model.IsCode(err, model.CodeThreadNotFound)
}

func (e *Engine) rememberName(run string, seq int, name string) {
	if name == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.names[run] == nil {
		e.names[run] = map[int]string{}
	}
	e.names[run][seq] = name
}

// snapshot gathers the facts of the author, the target and its ancestors for the gates.
func (e *Engine) snapshot(ctx context.Context, author Facts, target string) Snapshot {
	s := Snapshot{Author: author, Threads: map[string]Facts{author.ID: author}}
	id := target
	for step := 0; step <= MaxChainSteps && id != "" && id != author.ID; step++ {
		if _, seen := s.Threads[id]; seen {
			break
		}
		f, err := e.opts.Threads.Facts(ctx, id)
		if err != nil {
			break
		}
		s.Threads[id] = f
		id = f.Parent
	}
	return s
}

// control runs one cancel or retry behind the gates, checked again here at execution.
func (e *Engine) control(ctx context.Context, author Facts, b Block) Outcome {
	o := Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Targets: []string{b.Target}}
	s := e.snapshot(ctx, author, b.Target)
	if r := CheckControl(b.Tool, s, b.Target, e.opts.Threads.Permission(author.Principal, b.Tool)); !r.OK() {
		o.Decision, o.Code, o.Detail = Rejected, r.Code, r.Detail
		return o
	}
	var err error
	if b.Tool == ToolCancel {
		o.TurnID, err = e.opts.Threads.Cancel(ctx, b.Target)
	} else {
		o.TurnID, err = e.opts.Threads.Retry(ctx, b.Target)
	}
	if err != nil {
		o.Decision, o.Code, o.Detail = Rejected, "failed", short(model.AsError(err).Message)
		return o
	}
	o.Decision = Accepted
	return o
}

// queueRead turns a poll or wait into a pending read with an absolute deadline.
func (e *Engine) queueRead(run *model.MarkerRun, b Block) {
	run.Pending = append(run.Pending, model.MarkerPending{Seq: b.Seq, Tool: b.Tool, Info: b.Info, Targets: b.Read.Targets,
		Interval: b.Read.Interval, Deadline: e.opts.Now().Add(b.Read.Timeout), Chars: b.Read.Chars, Once: b.Read.Once})
	if b.Read.DroppedTargets > 0 {
		run.Outcomes = append(run.Outcomes, Outcome{Seq: b.Seq, Info: b.Info, Tool: b.Tool, Decision: Accepted,
			Detail: fmt.Sprintf("%d targets beyond %d ignored", b.Read.DroppedTargets, MaxWaitTargets), Targets: b.Read.Targets})
	}
}

// audit writes one record per block: author, turn, tool, targets, decision, reason code and
// times; never prompt text, names or output.
func (e *Engine) audit(run model.MarkerRun, parsed Parsed) {
	now := e.opts.Now()
	decided := map[int]Outcome{}
	for _, o := range run.Outcomes {
		decided[o.Seq] = o
	}
	var audits []model.MarkerAudit
	for _, b := range parsed.Blocks {
		a := model.MarkerAudit{Author: run.Author, Turn: run.Turn, Seq: b.Seq, Tool: b.Tool, Info: b.Info,
			Targets: targetsOf(b), Decision: Accepted, ParsedAt: run.StartedAt, DecidedAt: now}
		if o, ok := decided[b.Seq]; ok && o.Decision != Accepted {
			a.Decision, a.Code = o.Decision, o.Code
		} else if ok && o.Created != nil {
			a.Created = model.ThreadID(o.Created.ID)
		}
		// One id per run and block: written again after a restart, it replaces, not adds.
		a.ID = fmt.Sprintf("%s-%03d", run.ID, b.Seq)
		audits = append(audits, a)
	}
	if err := e.opts.Store.PutMarkerAudits(audits); err != nil {
		fmt.Fprintf(e.opts.Log, "marker audit of %s: %v\n", run.Author, err)
	}
}
