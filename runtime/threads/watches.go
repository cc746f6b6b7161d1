package threads

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/runtime/watch"
)

// Watches: registering them (thread.watch, delegate start --watch), listing them, a client's
// event log, and the engine's view of threads (WatchRead, WatchSend), which reads and sends as
// thread read and thread send do.

// WatchSend delivers a notification through `thread send`, telling the engine which failures
// started no turn and which recipients cannot take a turn here at all.
func (s *Service) WatchSend(ctx context.Context, recipient model.ThreadID, text string) error {
	hs, err := s.Harness(ctx, recipient)
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

// WatchRead is the engine's view of a thread: running or not, and its latest turn.
func (s *Service) WatchRead(ctx context.Context, id model.ThreadID) (watch.ThreadState, error) {
	hs, err := s.Harness(ctx, id)
	if err != nil {
		return watch.ThreadState{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return watch.ThreadState{}, err
	}
	// External turns are processes of this runtime: their ends always arrive as events.
	st := watch.ThreadState{Running: Running(snap.Info), Owned: hs.Kind() == model.HarnessExternal}
	if t := snap.Info.LastTurn; t != nil {
		st.TurnID, st.TurnStatus = t.ID, t.Status
	}
	return st, nil
}

// Watch registers a one-shot notification for when a thread stops. The notified party
// is --notify, else the harness-provided thread id, else the calling client; never guessed
// from active turns.
func (s *Service) Watch(ctx context.Context, caller api.Caller, p api.ThreadWatchParams) (api.WatchResult, error) {
	thread, err := ParseThread(p.Thread)
	if err != nil {
		return api.WatchResult{}, err
	}
	notify, err := s.watchRecipient(ctx, caller, p.Notify, p.Caller.EnvThread)
	if err != nil {
		return api.WatchResult{}, err
	}
	if notify == string(thread) {
		return api.WatchResult{}, model.Errorf(model.CodeInvalidArgument, "pass --notify with another thread, or watch another thread", "a thread cannot be notified of its own stop")
	}
	if p.TimeoutMs < 0 || p.TimeoutMs > int64(model.MaxWatchTimeout/time.Millisecond) {
		return api.WatchResult{}, model.Errorf(model.CodeInvalidArgument, "use --timeout-ms between 1 and 604800000 (7 days); the default is 30 minutes", "watch timeout %d ms out of range", p.TimeoutMs)
	}
	res, err := s.opts.Watch().RegisterOn(ctx, thread, notify, p.On, time.Duration(p.TimeoutMs)*time.Millisecond)
	if err == nil {
		setPublicWatch(&res, string(thread), notify)
	}
	return res, err
}

func (s *Service) watchRecipient(ctx context.Context, caller api.Caller, notify, envThread string) (string, error) {
	if strings.HasPrefix(notify, model.ClientRecipientPrefix) {
		return notify, notifyClientName(notify) // only that client itself may ask: watchPolicy
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
	if _, err := s.Harness(ctx, id); err != nil {
		return "", err
	}
	return string(id), nil
}

// Watches lists watching, pending and the latest undeliverable watches that visible
// admits (nil: all).
func (s *Service) Watches(visible func(model.Watch) bool) api.WatchesResult {
	res := s.opts.Watch().List()
	if visible != nil {
		res.Watching = slices.DeleteFunc(res.Watching, func(w model.Watch) bool { return !visible(w) })
		res.Pending = slices.DeleteFunc(res.Pending, func(w model.Watch) bool { return !visible(w) })
		res.Undeliverable = slices.DeleteFunc(res.Undeliverable, func(w model.Watch) bool { return !visible(w) })
	}
	return publicWatches(res)
}

// watchesVisible is which watches a caller may list: those whose notification goes to its
// own principal (itself, or a thread of its tree); nil for operators and in-process callers.
func (s *Service) watchesVisible(env route.Env) func(model.Watch) bool {
	threads := s.VisibleTo(env.Caller, env.Grant())
	if threads == nil {
		return nil
	}
	mine, _ := s.callerPrincipal(env.Caller)
	return func(w model.Watch) bool {
		if client, ok := strings.CutPrefix(w.Notify, model.ClientRecipientPrefix); ok {
			return model.ClientRecipientPrefix+client == mine
		}
		return threads(model.ThreadID(w.Notify))
	}
}

// MaxEventsWait bounds client.events' wait for an entry.
const MaxEventsWait = time.Hour

// ClientEventsWait reads the calling client's event log; with WaitMs and nothing after the
// cursor it waits, up to WaitMs, for the next entry instead of answering an empty page.
func (s *Service) ClientEventsWait(ctx context.Context, caller api.Caller, p api.ClientEventsParams) (api.ClientEventsResult, error) {
	if p.WaitMs < 0 || p.WaitMs > MaxEventsWait.Milliseconds() {
		return api.ClientEventsResult{}, model.Errorf(model.CodeInvalidArgument, "use --timeout-ms between 0 and 3600000 (one hour)", "events wait of %d ms out of range", p.WaitMs)
	}
	if p.WaitMs == 0 {
		return s.ClientEvents(caller, p)
	}
	// Subscribe before the first read, so an entry appended between the two is not missed.
	appended := make(chan struct{}, 1)
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.opts.Subscribe(subCtx, func(ev api.Event) {
		if ev.Type == api.EventClientLog && ev.Thread == caller.Client {
			select {
			case appended <- struct{}{}:
			default:
			}
		}
	})
	deadline := time.NewTimer(time.Duration(p.WaitMs) * time.Millisecond)
	defer deadline.Stop()
	for {
		res, err := s.ClientEvents(caller, p)
		if err != nil || len(res.Events) > 0 {
			return res, err
		}
		select {
		case <-appended:
		case <-deadline.C:
			res.TimedOut = true
			return res, nil
		case <-ctx.Done():
			return api.ClientEventsResult{}, ctx.Err()
		}
	}
}

// ClientEvents reads the calling client's durable event log.
func (s *Service) ClientEvents(caller api.Caller, p api.ClientEventsParams) (api.ClientEventsResult, error) {
	limit, err := pageLimit(p.Limit)
	if err != nil {
		return api.ClientEventsResult{}, err
	}
	events, err := s.deps.Store.ClientEvents(caller.Client, p.After, limit)
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
