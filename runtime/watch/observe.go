package watch

import (
	"context"
	"time"

	"github.com/codexhost/codexhost/model"
)

// observe reads one thread and settles every watch on it that the read decides.
func (e *Engine) observe(ctx context.Context, id model.ThreadID) {
	rctx, cancel := context.WithTimeout(ctx, readTimeout)
	st, err := e.opts.Read(rctx, id)
	cancel()
	now := e.opts.Now()

	e.mu.Lock()
	defer e.mu.Unlock()
	o := e.obs(id)
	o.lastRead = now
	var settle func(w *model.Watch) (result, turn, reason string)
	switch {
	case err == nil:
		o.readOK, o.failingSince, o.owned = true, time.Time{}, st.Owned
		settle = func(w *model.Watch) (string, string, string) {
			if w.On == model.WatchOnApproval {
				return approvalResult(w, st, now)
			}
			if e.restarted[w.ID] {
				delete(e.restarted, w.ID)
				if !st.Running && st.TurnID != "" && terminal(st.TurnStatus) {
					// The restart cut the turn short, whatever it reads as now (even completed,
					// under a new id once recovered).
					reason := "the thread was running when the runtime restarted; read afterwards as " + st.TurnStatus
					if st.TurnID != w.RunningTurn {
						reason += " (turn " + st.TurnID + ")"
					}
					return model.ResultInterrupted, w.RunningTurn, reason
				}
			}
			if st.Running {
				if w.RunningTurn != st.TurnID {
					w.RunningTurn = st.TurnID
					e.save(w, now)
				}
				if !now.Before(w.Deadline) {
					return model.ResultTimedOut, st.TurnID, ""
				}
				return "", "", ""
			}
			if st.TurnID == "" || !terminal(st.TurnStatus) {
				if !now.Before(w.Deadline) {
					return model.ResultTimedOut, "", "the thread did not run before the deadline"
				}
				return "", "", ""
			}
			return st.TurnStatus, st.TurnID, ""
		}
	case e.inGrace(o, now):
		// Neither unreadable, notFound nor timedOut while the owning session may be returning;
		// the run of failures is noted so that `unreadable` counts from the end of the grace.
		if o.failingSince.IsZero() {
			o.failingSince = now
		}
		return
	case model.IsCode(err, model.CodeThreadNotFound):
		settle = func(w *model.Watch) (string, string, string) {
			if e.restarted[w.ID] {
				return model.ResultInterrupted, w.RunningTurn, "the thread was running when the runtime restarted and could not be reopened: " + shortErr(err)
			}
			return model.ResultNotFound, "", "the thread no longer exists"
		}
	default:
		if o.failingSince.IsZero() {
			o.failingSince = now
		}
		unreadable := !now.Before(e.unreadableAt(o))
		settle = func(w *model.Watch) (string, string, string) {
			if e.restarted[w.ID] {
				return model.ResultInterrupted, w.RunningTurn, "the thread was running when the runtime restarted and could not be reopened: " + shortErr(err)
			}
			if unreadable {
				return model.ResultUnreadable, "", "reads failed for 60 s: " + shortErr(err)
			}
			if !now.Before(w.Deadline) {
				return model.ResultTimedOut, w.RunningTurn, ""
			}
			return "", "", ""
		}
	}
	for _, w := range e.watching[id] {
		result, turn, reason := settle(w)
		if result == "" {
			continue
		}
		delete(e.watching[id], w.ID)
		if len(e.watching[id]) == 0 {
			delete(e.watching, id)
		}
		delete(e.restarted, w.ID)
		e.fault("before-record")
		w.State, w.Result, w.SourceTurn, w.Reason = model.WatchPending, result, turn, reason
		w.DueAt, w.NextAttempt = now, now
		e.save(w, now)
	}
}

func shortErr(err error) string {
	s := err.Error()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// approvalResult settles a watch on approval: needsApproval once an approval of the thread
// waits, timedOut at the deadline without one.
func approvalResult(w *model.Watch, st ThreadState, now time.Time) (result, turn, reason string) {
	if st.Approval != "" {
		w.Approval = st.Approval
		return model.ResultNeedsApproval, st.TurnID, ""
	}
	if !now.Before(w.Deadline) {
		return model.ResultTimedOut, "", "no approval was asked before the deadline"
	}
	return "", "", ""
}
