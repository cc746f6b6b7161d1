package runtime

import (
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Streaming of running turns: a fragment of assistant text from a harness goes out as a
// thread.delta event, under the supervised id too when the thread is a supervised thread's
// canonical one. It touches no record and no watch: the turn's status did not change, and
// conversation text never enters the store. Who receives it: runtime/eventcontent.go.

func (h *Host) onDelta(ev harness.Event) {
	h.publish(deltaEvent(string(ev.Thread), ev))
	h.supervise.OnEvent(ev)
}

func deltaEvent(thread string, ev harness.Event) api.Event {
	d := ev.Delta
	return api.DeltaEvent(thread, ev.Status, ev.TurnID, api.ThreadDelta{ItemID: d.ItemID, Text: d.Text, Seq: d.Seq})
}
