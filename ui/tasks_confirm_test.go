package ui

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/keymap"
)

// The confirmation dialog of a held high-risk task names the task (its full id) and who
// asked for it (who started it, and who created its handoff), beside its risk, operations,
// root and sandbox: the operator confirms a task knowing which one and whose.
func TestTaskConfirmDialogNamesTheTaskAndWhoAsked(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	tasksFixture(rt)
	km := keymap.Default()
	clk := &clock{t: epoch}
	app := New(Options{Runtime: rt, Keys: km, Styles: asciiStyles(), Profile: termenv.Ascii, Endpoint: "unix:///home/runtime.sock",
		Client: "local", Cwd: "/work", Now: clk.now, Timeout: time.Second, Location: time.UTC})
	tm := teatest.NewTestModel(t, app, teatest.WithInitialTermSize(200, 50))
	// Each wait reads the frames that came after the previous one.
	waitFor := func(want ...string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
			for _, w := range want {
				if !bytes.Contains(b, []byte(w)) {
					return false
				}
			}
			return true
		}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	press := func(keys []string) { tm.Send(keymap.MustMsg(keys[0])) }

	press(km.Global.Tasks.Keys())
	waitFor("rotate the keys", "◆ confirm?")
	press(km.List.Select.Keys())
	waitFor("Confirm a high-risk task?", "Task id: "+idTaskHigh, "Asked by: client:bot (handoff created by client:planner)", "/src/app", "workspace-write")
	press(km.Global.Quit.Keys())
	tm.Quit()
	_, _ = io.ReadAll(tm.FinalOutput(t, teatest.WithFinalTimeout(5*time.Second)))
}
