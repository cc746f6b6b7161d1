package watch

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
)

// dueRecipients lists recipients with a pending notification that may be tried now.
func (e *Engine) dueRecipients(now time.Time) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, w := range e.active {
		if w.State != model.WatchPending || seen[w.Notify] {
			continue
		}
		if e.retryNow[w.Notify] || !now.Before(w.NextAttempt) {
			seen[w.Notify] = true
			out = append(out, w.Notify)
		}
	}
	for k := range e.retryNow {
		delete(e.retryNow, k)
	}
	sort.Strings(out)
	return out
}

// nextDue is the earliest deadline, retry or reconciliation time.
func (e *Engine) nextDue() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	graceEnd := e.startedAt.Add(model.RestartGrace)
	var next time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for _, w := range e.active {
		switch w.State {
		case model.WatchWatching:
			o := e.obs(w.Thread)
			if !o.readOK && o.lastRead.Before(graceEnd) {
				// Within the restart grace a passed deadline settles nothing: wake when the
				// grace ends rather than at once, over and over.
				consider(graceEnd)
				if w.Deadline.After(o.lastRead) {
					consider(w.Deadline)
				}
			} else {
				consider(w.Deadline)
			}
			consider(o.lastRead.Add(o.reconcileEvery()))
			if !o.failingSince.IsZero() {
				consider(e.unreadableAt(o))
			}
		case model.WatchPending:
			consider(w.NextAttempt)
		}
	}
	return next
}

// deliver sends every pending notification of one recipient in one message.
func (e *Engine) deliver(ctx context.Context, recipient string) {
	now := e.opts.Now()
	e.mu.Lock()
	var batch []*model.Watch
	for _, w := range e.active {
		if w.Notify != recipient || w.State != model.WatchPending {
			continue
		}
		if now.After(w.DueAt.Add(model.DeliveryWindow)) {
			e.giveUpLocked(w, now, "not delivered within 6 hours of the stop")
			continue
		}
		batch = append(batch, w)
	}
	sort.Slice(batch, func(i, j int) bool { return batch[i].DueAt.Before(batch[j].DueAt) })
	if len(batch) == 0 {
		e.mu.Unlock()
		return
	}
	for _, w := range batch {
		w.State = model.WatchDelivering
		w.Attempts++
		e.save(w, now)
	}
	snapshot := make([]model.Watch, len(batch))
	for i, w := range batch {
		snapshot[i] = *w
	}
	e.mu.Unlock()
	e.fault("after-delivery-started")

	if client, ok := strings.CutPrefix(recipient, model.ClientRecipientPrefix); ok {
		e.deliverToClient(client, batch, snapshot, now)
		return
	}
	dctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	err := e.opts.Send(dctx, model.ThreadID(recipient), e.text(snapshot))
	cancel()
	now = e.opts.Now()

	e.mu.Lock()
	defer e.mu.Unlock()
	o := e.obs(model.ThreadID(recipient))
	for _, w := range batch {
		// Only a notification restored from the last runtime waits for its recipient's session.
		grace := e.restored[w.ID] && e.inGrace(o, now)
		switch {
		case err == nil:
			e.fault("after-delivery-sent")
			w.State, w.DeliveredAt = model.WatchDelivered, now
			e.save(w, now)
			e.fault("after-delivery-recorded")
			delete(e.active, w.ID)
			delete(e.restored, w.ID)
			e.dropMessage(w)
			if derr := e.opts.Store.DeleteWatch(w.ID); derr != nil {
				fmt.Fprintf(e.opts.Log, "watch %s: delete: %v\n", w.ID, derr)
			}
		case model.IsCode(err, model.CodeThreadBusy):
			w.State, w.NextAttempt = model.WatchPending, now.Add(BusyRetry)
			e.save(w, now)
		case model.IsCode(err, model.CodeThreadNotFound) && !grace:
			e.giveUpLocked(w, now, "the recipient thread no longer exists")
		case isReadOnly(err) && !grace:
			e.giveUpLocked(w, now, "the recipient thread is read-only: "+shortErr(err))
		case harness.IsNotStarted(err) || errors.Is(err, context.Canceled) && ctx.Err() != nil || grace:
			w.State, w.NextAttempt = model.WatchPending, now.Add(backoff(w.Attempts))
			e.save(w, now)
		default:
			e.giveUpLocked(w, now, "delivery outcome unknown, not retried: "+shortErr(err))
		}
	}
}

func (e *Engine) deliverToClient(client string, batch []*model.Watch, snapshot []model.Watch, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, w := range batch {
		delivered := snapshot[i]
		delivered.State, delivered.DeliveredAt, delivered.UpdatedAt = model.WatchDelivered, now, now
		ev := model.ClientEvent{Type: "watch.notification", Watch: w.ID, Thread: w.Thread, Link: w.Thread.Link(), Result: w.Result, Turn: w.SourceTurn, Reason: w.Reason, Approval: w.Approval, At: now,
			Usage: e.usage(w.Thread)}
		if _, err := e.opts.Store.AppendClientEvent(client, ev, &delivered); err != nil {
			fmt.Fprintf(e.opts.Log, "watch %s: client event: %v\n", w.ID, err)
			w.State, w.NextAttempt = model.WatchPending, now.Add(backoff(w.Attempts))
			e.save(w, now)
			continue
		}
		e.fault("after-delivery-recorded")
		e.changed(delivered)
		delete(e.active, w.ID)
		delete(e.restored, w.ID)
		if err := e.opts.Store.DeleteWatch(w.ID); err != nil {
			fmt.Fprintf(e.opts.Log, "watch %s: delete: %v\n", w.ID, err)
		}
	}
	if e.opts.OnClientEvent != nil {
		e.opts.OnClientEvent(client)
	}
}

// giveUpLocked marks a watch undeliverable and keeps only the most recent ones.
func (e *Engine) giveUpLocked(w *model.Watch, now time.Time, reason string) {
	w.State, w.Reason = model.WatchUndeliverable, reason
	e.save(w, now)
	e.dropMessage(w)
	delete(e.active, w.ID)
	delete(e.restored, w.ID)
	e.undeliverable = append(e.undeliverable, *w)
	for len(e.undeliverable) > model.UndeliverableKept {
		old := e.undeliverable[0]
		e.undeliverable = e.undeliverable[1:]
		if err := e.opts.Store.DeleteWatch(old.ID); err != nil {
			fmt.Fprintf(e.opts.Log, "watch %s: prune: %v\n", old.ID, err)
		}
	}
}

func backoff(attempts int) time.Duration {
	d := 5 * time.Second
	for i := 1; i < attempts && d < maxBackoff; i++ {
		d *= 2
	}
	if d > maxBackoff {
		d = maxBackoff
	}
	return d
}

// Text is the notification turn's text: outcome, link and the command to read the thread —
// no conversation content, and nothing that reads as accepting the work.
func Text(ws []model.Watch) string { return textWithUsage(ws, nil) }

// usage is the watched thread's usage; nil without a source or a report.
func (e *Engine) usage(id model.ThreadID) *model.Usage {
	if e.opts.Usage == nil {
		return nil
	}
	return e.opts.Usage(id)
}

// textWithUsage is Text with each thread's token usage, when usage knows it.
func textWithUsage(ws []model.Watch, usage func(model.ThreadID) *model.Usage) string {
	var b strings.Builder
	b.WriteString("codexhost watch notification (status only; the work has not been reviewed):\n")
	for _, w := range ws {
		if w.Result == model.ResultNeedsApproval {
			fmt.Fprintf(&b, "- thread %s needs approval: %s waits for an answer (a person or client answers it: codexhost approve %s --decision accept|decline|cancel)", w.Thread.Link(), w.Approval, w.Approval)
		} else {
			fmt.Fprintf(&b, "- thread %s stopped: %s", w.Thread.Link(), w.Result)
		}
		if w.SourceTurn != "" {
			fmt.Fprintf(&b, " (turn %s)", w.SourceTurn)
		}
		if w.Reason != "" {
			fmt.Fprintf(&b, "; %s", w.Reason)
		}
		if usage != nil {
			if u := usage(w.Thread); u != nil {
				fmt.Fprintf(&b, "; tokens used: %s", model.UsageLine(u))
			}
		}
		// A notification turn goes to an agent, whose shell finds this runtime's CLI only
		// through CODEXHOST_CLI_PATH (PATH may hold no codexhost, or another one).
		fmt.Fprintf(&b, ". Read it with: \"$CODEXHOST_CLI_PATH\" thread read %s\n", w.Thread)
	}
	return strings.TrimRight(b.String(), "\n")
}
