package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// Wait limits.
const (
	DefaultWaitTimeout = 30 * time.Second
	MaxWaitTimeout     = time.Hour
	// waitReconcile re-reads a waited-on thread in case an event was missed (for example a
	// thread run by another process, which sends us none).
	waitReconcile = 5 * time.Second
)

// threadHarness finds the harness a thread belongs to: its registration first, then each
// external harness's own files, then the App Server.
func (h *Host) threadHarness(ctx context.Context, id model.ThreadID) (harness.Harness, error) {
	// A supervised thread (continue) runs on its canonical thread: runtime/supervise.go.
	if hs, ok, err := h.supervisedThread(id); ok || err != nil {
		return hs, err
	}
	if rec, err := h.store.Thread(id); err == nil {
		if hs, ok := h.harnesses[rec.Harness]; ok {
			return hs, nil
		}
		return nil, model.Errorf(model.CodeFailedPrecondition, "add the harness back to config.toml and restart the runtime", "thread %s belongs to harness %q, which is not configured", id, rec.Harness)
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	for name, hs := range h.harnesses {
		if name != model.NativeHarness && hs.Owns(ctx, id) {
			return hs, nil
		}
	}
	if h.native.Owns(ctx, id) {
		return h.native, nil
	}
	return nil, threadNotFound(id)
}

func threadNotFound(id model.ThreadID) error {
	return model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost thread list`", "no thread %s in any harness", id)
}

func parseThread(s string) (model.ThreadID, error) {
	if s == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "pass a thread id or a codex://threads/<id> link", "missing thread id")
	}
	return model.ParseThreadID(s)
}

// decorate adds what the records know (origin, refs) to a harness view.
func (h *Host) decorate(info *model.ThreadInfo) {
	info.Refs = []string{}
	o, err := h.store.Origin(model.ThreadID(info.ID))
	if err != nil {
		return
	}
	info.Refs = append(info.Refs, o.Refs...)
	info.Origin = &model.OriginView{Kind: o.Kind, ParentThread: string(o.ParentThread), Client: o.Client, DelegationID: o.DelegationID}
}

func pageLimit(limit int) (int, error) {
	switch {
	case limit == 0:
		return model.DefaultPageLimit, nil
	case limit < 0 || limit > model.MaxPageLimit:
		return 0, model.Errorf(model.CodeInvalidArgument, "use --limit between 1 and 100", "limit %d out of range", limit)
	}
	return limit, nil
}

// ThreadRead returns a snapshot of any thread, native or external, without changing it.
func (h *Host) ThreadRead(ctx context.Context, p api.ThreadReadParams) (api.ThreadReadResult, error) {
	id, err := parseThread(p.Thread)
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
	hs, err := h.threadHarness(ctx, id)
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{Messages: view == model.ViewMessages, Limit: limit, Cursor: p.Cursor})
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	h.decorate(&snap.Info)
	res := api.ThreadReadResult{Thread: snap.Info, Result: snap.Result}
	if view == model.ViewMessages {
		res.Messages = snap.Messages
		if res.Messages == nil {
			res.Messages = []model.Message{}
		}
		res.NextCursor = snap.NextCursor
	}
	return res, nil
}

// ThreadWait blocks until the thread is not active or the timeout passes. It only reads.
func (h *Host) ThreadWait(ctx context.Context, p api.ThreadWaitParams) (api.ThreadReadResult, error) {
	timeout := DefaultWaitTimeout
	if p.TimeoutMs < 0 {
		return api.ThreadReadResult{}, model.Errorf(model.CodeInvalidArgument, "use a positive --timeout-ms", "negative timeout")
	}
	if p.TimeoutMs > 0 {
		timeout = model.ClampMillis(int64(p.TimeoutMs), MaxWaitTimeout)
	}
	id, err := parseThread(p.Thread)
	if err != nil {
		return api.ThreadReadResult{}, err
	}
	// Subscribe before the first read so a stop between the read and the wait is not missed.
	changed := make(chan struct{}, 1)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.Subscribe(subCtx, func(ev api.Event) {
		if ev.Thread == string(id) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		res, err := h.ThreadRead(ctx, p.ThreadReadParams)
		if err != nil {
			return res, err
		}
		if !running(res.Thread) {
			res.TimedOut = new(bool)
			return res, nil
		}
		select {
		case <-changed:
		case <-time.After(waitReconcile):
		case <-deadline.C:
			res, err := h.ThreadRead(ctx, p.ThreadReadParams)
			if err != nil {
				return res, err
			}
			timedOut := running(res.Thread)
			res.TimedOut = &timedOut
			return res, nil
		case <-ctx.Done():
			return api.ThreadReadResult{}, ctx.Err()
		}
	}
}

// running reports a thread with a turn in flight: active here, or (read-only) a turn that
// another Codex process is still running on a thread that is not loaded here.
func running(info model.ThreadInfo) bool {
	return info.Status == model.ThreadActive || (info.LastTurn != nil && info.LastTurn.Status == model.TurnInProgress)
}

// ThreadSend starts a turn on an idle thread; THREAD_BUSY otherwise. It never queues.
func (h *Host) ThreadSend(ctx context.Context, caller api.Caller, p api.ThreadSendParams) (api.ThreadSendResult, error) {
	id, err := parseThread(p.Thread)
	if err != nil {
		return api.ThreadSendResult{}, err
	}
	if h.supervision != nil {
		if err := h.authorizeNodeSend(caller, id); err != nil {
			return api.ThreadSendResult{}, err
		}
	}
	if err := checkText("message", p.Message); err != nil {
		return api.ThreadSendResult{}, err
	}
	if p.Model != "" {
		return api.ThreadSendResult{}, h.refuseSendModel(id)
	}
	hs, err := h.threadHarness(ctx, id)
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
	h.decorate(&snap.Info)
	return api.ThreadSendResult{Thread: snap.Info, TurnID: turnID}, nil
}

// ThreadCancel interrupts the active turn.
func (h *Host) ThreadCancel(ctx context.Context, p api.ThreadCancelParams) (api.ThreadCancelResult, error) {
	id, err := parseThread(p.Thread)
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	hs, err := h.threadHarness(ctx, id)
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	turnID, err := hs.Cancel(ctx, id)
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return api.ThreadCancelResult{}, err
	}
	h.decorate(&snap.Info)
	return api.ThreadCancelResult{Thread: snap.Info, TurnID: turnID}, nil
}

// MaxTextBytes bounds a task or message: large enough for any prompt, small enough that a
// runaway pipe cannot exhaust the runtime.
const MaxTextBytes = 1 << 20

func checkText(what, text string) error {
	if text == "" {
		return model.Errorf(model.CodeInvalidArgument, "pass --"+what+" TEXT or pipe it on stdin", "empty %s", what)
	}
	if len(text) > MaxTextBytes {
		return model.Errorf(model.CodeInvalidArgument, "put long material in a file and reference it", "%s is %d bytes; the limit is %d", what, len(text), MaxTextBytes)
	}
	return nil
}
