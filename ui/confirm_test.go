package ui

import (
	"encoding/json"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// The dialog that cancels a turn must not say that other keys "cancel" too: "y cancel the
// turn · any other key cancels" reads as if every key stopped the turn.
func TestConfirmKeyLineDoesNotSayCancelForNo(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) { // a turn runs: x applies
		return api.ThreadListResult{Threads: []model.ThreadInfo{{ID: idShell, Harness: "shell", Status: model.ThreadActive, UpdatedAt: epoch}}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.Thread.Cancel)
	v := a.view()
	mustContain(t, v, "Cancel the running turn?", "y cancel the turn · any other key backs out  (y/N)")
	mustNotContain(t, v, "other key cancels")
}
