package handoff

import (
	"context"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// reopen runs a confirmed task whose thread a restart lost. Codex keeps a thread only once
// its first turn starts, so an awaiting task's thread does not outlive the App Server that
// made it: the confirmation starts a new thread under the same plan and runs the task
// there. The new task carries who started it, why it was held and who confirmed it, and
// names the task it replaces; the old one ends interrupted, naming its replacement, so the
// handoff has one live task and the operator's confirmation is never lost.
func (s *Service) reopen(ctx context.Context, caller api.Caller, old model.TaskRecord, pl plan) (api.TaskStartResult, error) {
	starter := callerFromName(old.StartedBy)
	id, threadSandbox, applied, err := s.startThread(ctx, starter, pl)
	if err != nil {
		return api.TaskStartResult{}, err
	}
	now := s.opts.Now()
	rec := old
	rec.ID, rec.Replaces, rec.Sandbox, rec.Status, rec.Reason, rec.UpdatedAt = id, old.ID, threadSandbox.Mode, model.TaskAwaitingConfirmation, "", now
	rec.TurnID, rec.StartedAt, rec.Deadline, rec.EndedAt = "", time.Time{}, time.Time{}, time.Time{}
	if err := s.opts.Store.PutTask(rec); err != nil {
		return api.TaskStartResult{}, err
	}
	reason := "the runtime restarted while the task awaited confirmation and Codex had not kept its thread; the confirmation runs it as task " + string(id)
	if _, err := s.opts.Store.UpdateTask(old.ID, func(t *model.TaskRecord) error {
		t.Status, t.Reason, t.ReplacedBy, t.EndedAt, t.UpdatedAt = model.TaskInterrupted, reason, id, now, now
		return nil
	}); err != nil {
		return api.TaskStartResult{}, err
	}
	s.trace(TraceEntry{Event: "reopened", Task: id, Handoff: rec.HandoffID, By: CallerName(caller), Decision: "replaces task " + string(old.ID),
		Details: map[string]any{"replaces": string(old.ID), "sandbox": threadSandbox.Mode, "appliedSandbox": applied}})
	info, err := s.begin(ctx, pl, rec, CallerName(caller), true)
	return api.TaskStartResult{Task: info}, err
}

// callerFromName is the caller a record names ("client:NAME", else the runtime's agents),
// so the new thread of a reopened task has the origin its first one had.
func callerFromName(name string) api.Caller {
	if client, ok := strings.CutPrefix(name, model.ClientRecipientPrefix); ok {
		return api.Caller{Kind: api.CallerClient, Client: client}
	}
	return api.Caller{Kind: api.CallerRuntime}
}
