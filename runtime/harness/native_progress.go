package harness

import (
	"encoding/json"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// The progress of a running native turn. Codex lists a turn's items only once they are
// written, so thread/turns/list shows little of a turn in flight; the App Server's
// item/started notifications of the threads this runtime runs are the source instead.

// itemStartedLocked counts an item the active turn of a tracked thread started.
func (n *Native) itemStartedLocked(params json.RawMessage) {
	var ev appserver.ItemEvent
	if json.Unmarshal(params, &ev) != nil || ev.ThreadID == "" {
		return
	}
	t := n.threads[model.ThreadID(ev.ThreadID)]
	if t == nil || t.turnID == "" || (ev.TurnID != "" && ev.TurnID != t.turnID) || ev.Item.Type == "userMessage" {
		return // the turn's own input is not its work
	}
	t.progress.Items++
	switch ev.Item.Type {
	case "commandExecution":
		t.progress.Commands++
	case "agentMessage":
		t.progress.Messages++
	}
}

// addProgress gives last, when it is the running turn of a thread this runtime tracks, the
// progress counted so far.
func (n *Native) addProgress(c *appserver.Client, id model.ThreadID, last *model.TurnSummary) {
	t, ok := n.tracked(c, id)
	if !ok || t.turnID == "" || last.ID != t.turnID || last.Status != appserver.TurnInProgress {
		return
	}
	p := t.progress
	last.Progress = &p
}
