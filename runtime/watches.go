package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/watch"
)

// startWatches opens the watch engine on the store and runs it until the host closes.
func (h *Host) startWatches() error {
	engine, err := watch.Open(watch.Options{
		Store: h.store,
		Read:  h.watchRead,
		Send:  h.watchSend,
		Now:   h.opts.Now,
		Log:   h.opts.Log,
		Fault: faultPoint,
		// Marker reports ride this path: their text is a 0600 file here (runtime/markers.go).
		MessageDir: filepath.Join(h.opts.Home, "messages"),
		OnClientEvent: func(client string) {
			h.publish(api.Event{Type: api.EventClientLog, Thread: client})
		},
		OnChange: func(w model.Watch) {
			h.publish(api.Event{Type: api.EventWatchState, Thread: string(w.Thread), Status: w.State})
		},
	})
	if err != nil {
		return err
	}
	h.watch = engine
	ctx, cancel := context.WithCancel(context.Background())
	h.stopWatch = cancel
	go engine.Run(ctx)
	return nil
}

// watchSend delivers a notification through `thread send`, telling the engine which failures
// started no turn and which recipients cannot take a turn here at all.
func (h *Host) watchSend(ctx context.Context, recipient model.ThreadID, text string) error {
	hs, err := h.threadHarness(ctx, recipient)
	if err != nil {
		if model.IsCode(err, model.CodeFailedPrecondition) {
			// Its harness is no longer configured: no turn can start here.
			return watch.ReadOnly(harness.NotStarted(err))
		}
		return harness.NotStarted(err)
	}
	// The harness's Send is what `thread send` runs; its read-back is skipped so that a failed
	// read after a started turn is not mistaken for an unknown delivery outcome.
	_, err = hs.Send(ctx, recipient, text)
	if hs.Kind() == model.HarnessNative && model.IsCode(err, model.CodeFailedPrecondition) && harness.IsNotStarted(err) {
		// The App Server refused to open it for writing: held by another Codex process, or archived.
		return watch.ReadOnly(err)
	}
	return err
}

// watchRead is the engine's view of a thread: running or not, and its latest turn.
func (h *Host) watchRead(ctx context.Context, id model.ThreadID) (watch.ThreadState, error) {
	hs, err := h.threadHarness(ctx, id)
	if err != nil {
		return watch.ThreadState{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return watch.ThreadState{}, err
	}
	// External turns are processes of this runtime: their ends always arrive as events.
	st := watch.ThreadState{Running: running(snap.Info), Owned: hs.Kind() == model.HarnessExternal}
	if t := snap.Info.LastTurn; t != nil {
		st.TurnID, st.TurnStatus = t.ID, t.Status
	}
	return st, nil
}

// ThreadWatch registers a one-shot notification for when a thread stops. The notified party
// is --notify, else the harness-provided thread id, else the calling client; never guessed
// from active turns.
func (h *Host) ThreadWatch(ctx context.Context, caller api.Caller, p api.ThreadWatchParams) (api.WatchResult, error) {
	thread, err := parseThread(p.Thread)
	if err != nil {
		return api.WatchResult{}, err
	}
	notify, err := h.watchRecipient(ctx, caller, p.Notify, p.Caller.EnvThread)
	if err != nil {
		return api.WatchResult{}, err
	}
	if notify == string(thread) {
		return api.WatchResult{}, model.Errorf(model.CodeInvalidArgument, "pass --notify with another thread, or watch another thread", "a thread cannot be notified of its own stop")
	}
	if p.TimeoutMs < 0 || p.TimeoutMs > int64(model.MaxWatchTimeout/time.Millisecond) {
		return api.WatchResult{}, model.Errorf(model.CodeInvalidArgument, "use --timeout-ms between 1 and 604800000 (7 days); the default is 30 minutes", "watch timeout %d ms out of range", p.TimeoutMs)
	}
	return h.watch.Register(ctx, thread, notify, time.Duration(p.TimeoutMs)*time.Millisecond)
}

func (h *Host) watchRecipient(ctx context.Context, caller api.Caller, notify, envThread string) (string, error) {
	if strings.HasPrefix(notify, model.ClientRecipientPrefix) {
		return notify, nil // only that client itself may ask: watchPolicy
	}
	given := notify
	if given == "" {
		given = envThread
	}
	if given == "" {
		if caller.Kind == api.CallerClient {
			return model.ClientRecipientPrefix + caller.Client, nil
		}
		return "", model.Errorf(model.CodeInvalidArgument, "pass --notify <thread id> (or client:<name> through a client token)", "no one to notify: --notify was not given and CODEXHOST_THREAD_ID is not set")
	}
	id, err := model.ParseThreadID(given)
	if err != nil {
		return "", err
	}
	if _, err := h.threadHarness(ctx, id); err != nil {
		return "", err
	}
	return string(id), nil
}

// ThreadWatches lists watching, pending and the latest undeliverable watches.
func (h *Host) ThreadWatches() api.WatchesResult { return h.watch.List() }

// ClientEvents reads the calling client's durable event log.
func (h *Host) ClientEvents(caller api.Caller, p api.ClientEventsParams) (api.ClientEventsResult, error) {
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return api.ClientEventsResult{}, err
	}
	events, err := h.store.ClientEvents(caller.Client, p.After, limit)
	if err != nil {
		return api.ClientEventsResult{}, err
	}
	res := api.ClientEventsResult{Events: events, NextCursor: p.After}
	if res.Events == nil {
		res.Events = []model.ClientEvent{}
	}
	if n := len(events); n > 0 {
		res.NextCursor = events[n-1].Cursor
	}
	return res, nil
}
