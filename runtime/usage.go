package runtime

import (
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Token usage: each report of a harness is folded into the store (turn, thread total, the
// principal's day) and its new total goes out as a thread.usage event, so views update
// without reading the thread again. Records and events carry numbers only.

// onUsage records a usage report and publishes the thread's new total.
func (h *Host) onUsage(ev harness.Event) {
	principal, ok, err := h.threads.PrincipalOf(ev.Thread)
	if err != nil {
		h.logf("usage of %s: principal: %v", ev.Thread, err)
	}
	if !ok {
		principal = "thread:" + string(ev.Thread) // a session codexhost did not start stands alone
	}
	if ev.Usage.Model == "" {
		if rec, err := h.store.Thread(ev.Thread); err == nil {
			ev.Usage.Model = rec.Model
		}
	}
	total, err := h.store.RecordUsage(ev.Thread, principal, *ev.Usage, h.eventTime(ev))
	if err != nil {
		h.logf("usage of %s: %v", ev.Thread, err)
		return
	}
	h.publish(api.Event{Type: api.EventThreadUsage, Thread: string(ev.Thread), Status: ev.Status, TurnID: ev.TurnID,
		Usage: model.ViewUsage(&total, h.config().PriceBook())})
}
