package ui

import (
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: issue 16 bug 3. A watch that became undeliverable moves to the undeliverable pane
// on the runtime's watch.state event, without r.
func TestWatchStateEventMovesAWatchToUndeliverable(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	var given atomic.Bool
	rt.on(api.MethodThreadWatches, func(json.RawMessage) (any, error) {
		w := model.Watch{ID: "w1", Thread: idShell, Notify: idChild, State: model.WatchWatching, Deadline: epoch.Add(29 * 60e9)}
		if !given.Load() {
			return api.WatchesResult{Watching: []model.Watch{w}, Pending: []model.Watch{}, Undeliverable: []model.Watch{}}, nil
		}
		w.State, w.Result, w.Reason = model.WatchUndeliverable, model.ResultCompleted, "the recipient thread no longer exists"
		return api.WatchesResult{Watching: []model.Watch{}, Pending: []model.Watch{}, Undeliverable: []model.Watch{w}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, a.watches.View(), "● watching")
	mustContain(t, a.undeliv.View(), "nothing undeliverable")
	given.Store(true)
	a.send(EventMsg(api.Event{Type: api.EventWatchState, Thread: idShell, Status: model.WatchUndeliverable}))
	mustContain(t, a.watches.View(), "no watches")
	mustContain(t, a.undeliv.View(), "11111111…55", "reason: the recipient")
}

// Scenario: issue 24 item 6. A watch's recipient thread shows by its short id, as threads do
// everywhere else; a client keeps its name.
func TestWatchRecipientsUseShortIDs(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 200, 50)
	v := a.undeliv.View()
	mustContain(t, v, "→ "+a.c.short(idChild))
	mustNotContain(t, v, idChild)
	mustContain(t, a.watches.View(), "→ client:local")
}
