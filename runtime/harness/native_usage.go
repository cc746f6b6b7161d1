package harness

import (
	"encoding/json"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Token usage of native threads: each thread/tokenUsage/updated becomes an Event with Usage,
// numbers only. The App Server sends one per model request of a turn, and one without a turn
// when it loads a thread again (its restored total), which carries only the context.

func (n *Native) noteModel(id model.ThreadID, name string) {
	if name != "" {
		n.models.Store(id, name)
	}
}

func (n *Native) modelOf(id model.ThreadID) string {
	if v, ok := n.models.Load(id); ok {
		return v.(string)
	}
	return ""
}

// usageLocked reports one thread/tokenUsage/updated; n.mu is held.
func (n *Native) usageLocked(params json.RawMessage) {
	var ev appserver.TokenUsageUpdated
	if json.Unmarshal(params, &ev) != nil || ev.ThreadID == "" {
		return
	}
	id := model.ThreadID(ev.ThreadID)
	r := model.UsageReport{Turn: ev.TurnID, Total: ev.TokenUsage.Total.Counts(), Last: ev.TokenUsage.Last.Counts(), Model: n.modelOf(id)}
	if !r.Total.Valid() || !r.Last.Valid() {
		return
	}
	if w := ev.TokenUsage.ModelContextWindow; w != nil && *w > 0 {
		r.ContextWindow = *w
	}
	status := model.ThreadIdle
	if t := n.threads[id]; t != nil {
		status = t.status
	}
	n.emitLocked(Event{Thread: id, Status: status, TurnID: ev.TurnID, Usage: &r})
}
