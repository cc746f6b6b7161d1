package threads

import (
	"fmt"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Token usage: each report of a harness is folded into the store (turn, thread total, the
// principal's day) and its new total goes out as a thread.usage event, so views update
// without reading the thread again. Records and events carry numbers only.

// RecordUsage records the usage report ev carries, at at, and publishes the thread's new
// total.
func (s *Service) RecordUsage(ev harness.Event, at time.Time) {
	principal, ok, err := s.PrincipalOf(ev.Thread)
	if err != nil {
		fmt.Fprintf(s.opts.Log, "usage of %s: principal: %v\n", ev.Thread, err)
	}
	if !ok {
		principal = "thread:" + string(ev.Thread) // a session codexhost did not start stands alone
	}
	if ev.Usage.Model == "" {
		if rec, err := s.deps.Store.Thread(ev.Thread); err == nil {
			ev.Usage.Model = rec.Model
		}
	}
	total, err := s.deps.Store.RecordUsage(ev.Thread, principal, *ev.Usage, at)
	if err != nil {
		fmt.Fprintf(s.opts.Log, "usage of %s: %v\n", ev.Thread, err)
		return
	}
	s.opts.Publish(api.Event{Type: api.EventThreadUsage, Thread: string(ev.Thread), Status: ev.Status, TurnID: ev.TurnID,
		Usage: model.ViewUsage(&total, s.opts.Config().PriceBook())})
}
