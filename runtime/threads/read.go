package threads

import (
	"context"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// waitReconcile re-reads a waited-on thread in case an event was missed (for example a
// thread run by another process, which sends us none).
const waitReconcile = 5 * time.Second

// Read returns a snapshot of any thread, native or external, without changing it.
func (s *Service) Read(ctx context.Context, p api.ThreadReadParams) (api.ThreadReadResult, error) {
	id, err := ParseThread(p.Thread)
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	view := p.View
	if view == "" {
		view = model.ViewResult
	}
	if view != model.ViewResult && view != model.ViewMessages {
		return api.ThreadReadResult{}, model.Errorf(model.CodeInvalidArgument, "use --view result or --view messages", "unknown view %q", p.View)
	}
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	hs, err := s.Harness(ctx, id)
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{Messages: view == model.ViewMessages, Limit: limit, Cursor: p.Cursor})
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	s.Decorate(&snap.Info)
	res := api.ThreadReadResult{Thread: snap.Info, Result: snap.Result}
	if view == model.ViewMessages {
		res.Messages = snap.Messages
		if res.Messages == nil {
			res.Messages = []model.Message{}
		}
		res.NextCursor = snap.NextCursor
		if s.opts.Approvals != nil {
			res.Approvals = ApprovalsOfTurns(s.opts.Approvals(string(id)), res.Messages)
		}
	}
	setPublicRead(&res)
	return res, nil
}

// Wait blocks until the thread is not active or the timeout passes. It only reads.
func (s *Service) Wait(ctx context.Context, p api.ThreadWaitParams) (api.ThreadReadResult, error) {
	timeout := api.DefaultWaitTimeout
	if ms := p.TimeoutMs; ms != nil {
		if *ms < 0 || int64(*ms) > api.MaxWaitTimeout.Milliseconds() {
			return api.ThreadReadResult{}, model.Errorf(model.CodeInvalidArgument, "use --timeout-ms from 0 (read at once) to 3600000 (one hour)",
				"wait timeout %d ms out of range", *ms).WithDetail("timeoutMs", *ms)
		}
		timeout = time.Duration(*ms) * time.Millisecond
	}
	id, err := ParseThread(p.Thread)
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	// Subscribe before the first read so a stop between the read and the wait is not missed.
	changed := make(chan struct{}, 1)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.opts.Subscribe(subCtx, func(ev api.Event) {
		// A fragment of text changes nothing a wait looks at: no re-read per fragment.
		if ev.Thread == string(id) && ev.Type != api.EventThreadDelta {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		res, err := s.Read(ctx, p.ThreadReadParams)
		if err != nil {
			return res, err
		}
		if !Running(res.Thread) {
			res.TimedOut = new(bool)
			return res, nil
		}
		select {
		case <-changed:
		case <-time.After(waitReconcile):
		case <-deadline.C:
			res, err := s.Read(ctx, p.ThreadReadParams)
			if err != nil {
				return res, err
			}
			timedOut := Running(res.Thread)
			res.TimedOut = &timedOut
			return res, nil
		case <-ctx.Done():
			return api.ThreadReadResult{}, ctx.Err()
		}
	}
}

// Send starts a turn on an idle thread; THREAD_BUSY otherwise. It never queues.
func (s *Service) Send(ctx context.Context, p api.ThreadSendParams) (api.ThreadSendResult, error) {
	id, err := ParseThread(p.Thread)
	if err != nil {
		return api.ThreadSendResult{}, err
	}
	if err := CheckText("message", p.Message); err != nil {
		return api.ThreadSendResult{}, err
	}
	if p.Model != "" {
		return api.ThreadSendResult{}, s.refuseSendModel(id)
	}
	hs, err := s.Harness(ctx, id)
	if err != nil {
		return api.ThreadSendResult{}, err
	}
	turnID, err := hs.Send(ctx, id, p.Message)
	if err != nil {
		return api.ThreadSendResult{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return api.ThreadSendResult{}, err
	}
	s.Decorate(&snap.Info)
	return api.ThreadSendResult{ThreadID: snap.Info.ID, TurnID: turnID, HarnessID: snap.Info.Harness, Status: model.StatusRunning, Thread: snap.Info}, nil
}

// Cancel interrupts the active turn.
func (s *Service) Cancel(ctx context.Context, p api.ThreadCancelParams) (api.ThreadCancelResult, error) {
	id, err := ParseThread(p.Thread)
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	s.opts.OnCancel(id) // what its marker blocks have not run is abandoned
	hs, err := s.Harness(ctx, id)
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	turnID, err := hs.Cancel(ctx, id)
	cancelled := err == nil
	if err != nil && !(p.IdleOK && model.IsCode(err, model.CodeFailedPrecondition)) {
		return api.ThreadCancelResult{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	s.Decorate(&snap.Info)
	if !cancelled && Running(snap.Info) {
		// Refused for another reason than an idle thread: that stays an error.
		return api.ThreadCancelResult{}, model.Errorf(model.CodeFailedPrecondition, "read the thread with `codexhost thread read` and retry", "thread %s is running but its turn could not be interrupted", id)
	}
	return api.ThreadCancelResult{ThreadID: snap.Info.ID, TurnID: turnID, HarnessID: snap.Info.Harness, Cancelled: cancelled, Thread: snap.Info}, nil
}

// refuseSendModel answers a send that asks for another model: a turn runs with its thread's
// model, and a supervised thread is locked to the pair Codex chose at its first turn.
func (s *Service) refuseSendModel(id model.ThreadID) error {
	if err := s.opts.Supervised.ModelLocked(id); err != nil {
		return err
	}
	return model.Errorf(model.CodeInvalidArgument, "send without a model; start another thread with `delegate start --model`",
		"thread send keeps the thread's model")
}

// ApprovalsOfTurns keeps the approvals asked in the turns of msgs: a page shows what was
// asked in its turns, and no page shows an approval twice.
func ApprovalsOfTurns(list []model.Approval, msgs []model.Message) []model.Approval {
	turns := map[string]bool{}
	for _, m := range msgs {
		turns[m.TurnID] = true
	}
	var out []model.Approval
	for _, a := range list {
		if a.TurnID != "" && turns[a.TurnID] {
			out = append(out, a)
		}
	}
	return out
}
