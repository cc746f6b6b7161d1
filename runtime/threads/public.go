package threads

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The public CodexHost fields of the thread results, filled from codexhost's own: the names
// agents that know the public CLI read (threadId, harnessId, status, turn, result, …).

// setPublicRead fills the public fields of a read or wait snapshot.
func setPublicRead(res *api.ThreadReadResult) {
	info := res.Thread
	res.ThreadID, res.HarnessID, res.Status = info.ID, info.Harness, info.RunStatus
	res.Turn = nil
	if t := info.LastTurn; t != nil {
		res.Turn = &api.TurnRef{TurnID: t.ID, Status: model.PublicTurnStatus(t.Status)}
		res.Progress = t.Progress
	}
	if res.Result != nil {
		res.Result.SetAvailability(Running(info))
	}
	res.HasMore = res.Messages != nil && res.NextCursor != ""
}

// setPublicStart fills the public fields of a delegate start result.
func setPublicStart(res *api.DelegateStartResult, turnID string) {
	info := res.Thread
	res.ThreadID, res.HarnessID, res.DeepLink, res.Status, res.Cwd = info.ID, info.Harness, info.Link, info.RunStatus, info.Cwd
	res.TurnID = turnID
	if res.TurnID == "" && info.LastTurn != nil {
		res.TurnID = info.LastTurn.ID
	}
	if info.Origin != nil {
		res.ParentThreadID = info.Origin.ParentThread
	}
	if res.Watch != nil {
		setPublicWatch(res.Watch, info.ID, "")
	}
}

// setPublicWatch fills the public fields of a watch registration.
func setPublicWatch(w *api.WatchResult, thread, notify string) {
	w.ThreadID, w.NotifyThreadID = thread, notify
	if w.Watch != nil {
		w.ThreadID, w.NotifyThreadID = string(w.Watch.Thread), w.Watch.Notify
		w.TimeoutMs = w.Watch.Deadline.Sub(w.Watch.RegisteredAt).Milliseconds()
	}
	if w.State == model.WatchWatching {
		w.Status = model.StatusRunning
	}
}

// publicWatches adds the public entries to a listing of watches.
func publicWatches(res api.WatchesResult) api.WatchesResult {
	res.Watches = []api.WatchEntry{}
	for _, group := range [][]model.Watch{res.Watching, res.Pending, res.Undeliverable} {
		for _, w := range group {
			res.Watches = append(res.Watches, api.PublicWatch(w))
		}
	}
	return res
}
