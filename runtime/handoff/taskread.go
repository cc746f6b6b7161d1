package handoff

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Bounds of a result's texts.
const (
	MinTextBytes     = 200
	MaxTextBytes     = 20000
	DefaultTextBytes = 1800
)

func (s *Service) info(rec model.TaskRecord) api.TaskInfo {
	info := api.TaskInfo{TaskID: string(rec.ID), Link: rec.ID.Link(), Status: rec.Status, HandoffID: rec.HandoffID, Handoff: s.linked(rec.HandoffID),
		RiskLevel: rec.Risk, RiskFloor: rec.RiskFloor, HeldBecause: rec.Held, Operations: rec.Operations, Root: rec.Root, Sandbox: rec.Sandbox, Network: rec.Network, Goal: rec.Goal,
		Provider: rec.Provider, Approval: rec.Approval, TimeoutMs: rec.TimeoutMs, Reason: rec.Reason, StartedBy: rec.StartedBy, ConfirmedBy: rec.ConfirmedBy,
		CancelledBy: rec.CancelledBy, Replaces: string(rec.Replaces), ReplacedBy: string(rec.ReplacedBy), CreatedAt: rec.CreatedAt, StartedAt: rec.StartedAt, Deadline: rec.Deadline, EndedAt: rec.EndedAt}
	var res resultFile
	if readJSON(s.files.resultPath(rec.ID), &res) == nil {
		info.ChangedFiles, info.Violations = len(res.ChangedFiles), len(res.Violations)
		if len(res.Tests) > 0 {
			passed := true
			for _, t := range res.Tests {
				passed = passed && t.ExitCode == 0 && !t.TimedOut
			}
			info.TestsPassed = &passed
		}
	}
	return info
}

// Status reads one task, or lists the running and recent ones: active first, then newest.
//
// owner, when set, keeps the list to the tasks that caller started ("client:NAME"): a task
// named by its id is shown to anyone, as a thread is.
func (s *Service) Status(ctx context.Context, caller api.Caller, p api.TaskStatusParams, owner string) (api.TaskStatusResult, error) {
	if p.TaskID != "" {
		rec, err := s.task(p.TaskID)
		if err != nil {
			return api.TaskStatusResult{}, err
		}
		return api.TaskStatusResult{Tasks: []api.TaskInfo{s.info(rec)}}, nil
	}
	limit, err := checkLimit(p.Limit)
	if err != nil {
		return api.TaskStatusResult{}, err
	}
	var recs []model.TaskRecord
	if err := s.opts.Store.Tasks(func(t model.TaskRecord) error {
		if owner == "" || t.StartedBy == owner {
			recs = append(recs, t)
		}
		return nil
	}); err != nil {
		return api.TaskStatusResult{}, err
	}
	slices.SortFunc(recs, func(a, b model.TaskRecord) int {
		if at, bt := model.TaskTerminal(a.Status), model.TaskTerminal(b.Status); at != bt {
			if at {
				return 1
			}
			return -1
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	out := api.TaskStatusResult{Tasks: []api.TaskInfo{}}
	for _, r := range recs {
		if len(out.Tasks) >= limit {
			break
		}
		out.Tasks = append(out.Tasks, s.info(r))
	}
	return out, nil
}

// TaskOwner is who started a task (runtime, or client:NAME): the principal of its thread.
func (s *Service) TaskOwner(id string) (string, error) {
	rec, err := s.task(id)
	return rec.StartedBy, err
}

// HandoffOwner is who created a handoff (runtime, or client:NAME).
func (s *Service) HandoffOwner(id string) (string, error) {
	if !ValidHandoffID(id) {
		return "", unknownHandoff(id)
	}
	rec, err := s.opts.Store.Handoff(id)
	if err != nil {
		return "", err
	}
	return rec.CreatedBy, nil
}

// Result returns a task's evidence: compact unless log, diff or handoff are asked for.
func (s *Service) Result(ctx context.Context, caller api.Caller, p api.TaskResultParams) (api.TaskResult, error) {
	limit := p.MaxTextBytes
	if limit == 0 {
		limit = DefaultTextBytes
	}
	if limit < MinTextBytes || limit > MaxTextBytes {
		return api.TaskResult{}, model.Errorf(model.CodeInvalidArgument, "give maxTextBytes from 200 to 20000 (default 1800)", "maxTextBytes %d is out of range", p.MaxTextBytes)
	}
	rec, err := s.task(p.TaskID)
	if err != nil {
		return api.TaskResult{}, err
	}
	out := api.TaskResult{Task: s.info(rec), ChangedFiles: []api.TaskChangedFile{}}
	var res resultFile
	if err := readJSON(s.files.resultPath(rec.ID), &res); err == nil {
		out.ChangedFiles, out.Artifacts, out.Violations, out.Notes = res.ChangedFiles, res.Artifacts, res.Violations, res.Notes
		for _, t := range res.Tests {
			if !p.IncludeLog {
				t.OutputTail = "" // output is log: only on request
			} else {
				t.OutputTail, _ = capText(t.OutputTail, limit)
			}
			out.Tests = append(out.Tests, t)
		}
		if p.IncludeDiff {
			diff := res.Diff
			if !res.GitRoot {
				diff = "(no diff: the project is not a git work tree; changedFiles lists what changed)"
			}
			out.Diff, out.DiffTruncated = capText(diff, limit)
		}
	} else if !model.TaskTerminal(rec.Status) {
		out.Notes = append(out.Notes, "the task is "+rec.Status+": its evidence is gathered when the turn ends")
	}
	if p.IncludeLog {
		out.Log, out.LogTruncated = capText(s.log(ctx, rec), limit)
	}
	if p.IncludeHandoff {
		if _, h, _, err := s.load(rec.HandoffID); err == nil {
			out.Handoff = &h
		}
	}
	return out, nil
}

// log is the thread's messages and the task's trace, as text.
func (s *Service) log(ctx context.Context, rec model.TaskRecord) string {
	var b strings.Builder
	if msgs, err := s.opts.Runner.Messages(ctx, rec.ID, 100); err == nil {
		for _, m := range msgs {
			fmt.Fprintf(&b, "[%s] %s\n", m.Role, m.Text)
		}
	} else {
		fmt.Fprintf(&b, "(messages unreadable: %s)\n", model.AsError(err).Message)
	}
	if tr, err := s.files.readTrace(rec.ID); err == nil {
		for _, e := range tr {
			fmt.Fprintf(&b, "%s %s %s %s\n", e.At.UTC().Format(time.RFC3339), e.Event, e.Decision, e.By)
		}
	}
	return b.String()
}

// capText keeps the last n bytes of s (on a rune boundary); the end is what matters most.
func capText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	cut := len(s) - n
	for cut < len(s) && (s[cut]&0xC0) == 0x80 {
		cut++
	}
	return s[cut:], true
}

// Cancel stops a task: an awaiting one never starts, a running one has its turn interrupted.
// confirm must be true; who cancelled is recorded.
func (s *Service) Cancel(ctx context.Context, caller api.Caller, p api.TaskCancelParams) (api.TaskInfo, error) {
	if !p.Confirm {
		return api.TaskInfo{}, model.Errorf(model.CodeInvalidArgument, "pass confirm: true (CLI: --confirm) to cancel the task", "cancel needs confirmation")
	}
	rec, err := s.task(p.TaskID)
	if err != nil {
		return api.TaskInfo{}, err
	}
	by := CallerName(caller)
	switch rec.Status {
	case model.TaskAwaitingConfirmation:
		now := s.opts.Now()
		rec, err = s.opts.Store.UpdateTask(rec.ID, func(t *model.TaskRecord) error {
			if t.Status != model.TaskAwaitingConfirmation { // confirmed meanwhile: its turn is starting
				return model.Errorf(model.CodeFailedPrecondition, "it was confirmed meanwhile: cancel it again to interrupt its turn", "task %s is %s", t.ID, t.Status)
			}
			t.Status, t.CancelledBy, t.Reason, t.EndedAt, t.UpdatedAt = model.TaskCancelled, by, "cancelled by "+by+" before confirmation", now, now
			return nil
		})
		if err != nil {
			return api.TaskInfo{}, err
		}
		s.trace(TraceEntry{Event: "cancelled", Task: rec.ID, By: by, Decision: "never started"})
		return s.info(rec), nil
	case model.TaskRunning:
	default:
		return api.TaskInfo{}, model.Errorf(model.CodeFailedPrecondition, "nothing to cancel; read its result with `codexhost task result "+string(rec.ID)+"`", "task %s is %s", rec.ID, rec.Status)
	}
	s.mu.Lock()
	r := s.runs[rec.ID]
	s.mu.Unlock()
	if r == nil {
		return api.TaskInfo{}, model.Errorf(model.CodeFailedPrecondition, "read the task's status again", "task %s is not running in this runtime", rec.ID)
	}
	r.mu.Lock()
	r.cancelBy = by
	r.mu.Unlock()
	s.trace(TraceEntry{Event: "cancel", Task: rec.ID, By: by, Decision: "interrupt the turn"})
	if err := s.opts.Runner.Interrupt(ctx, rec.ID); err != nil && !model.IsCode(err, model.CodeFailedPrecondition) {
		return api.TaskInfo{}, err
	}
	// The turn ends within milliseconds of the interrupt; report the recorded outcome.
	select {
	case <-r.done:
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
	}
	rec, err = s.task(string(rec.ID))
	return s.info(rec), err
}
