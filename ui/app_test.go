package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// openArchiveDialog presses archive on the first fleet row and lets the status read answer.
func openArchiveDialog(t *testing.T, a *testApp) {
	t.Helper()
	a.press(a.km.Thread.Archive)
	if !a.confirm.open {
		t.Fatalf("no archive dialog:\n%s", a.view())
	}
}

func TestArchiveDialogShowsStatusAndRiskAndOnlyYConfirms(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogArchive, func(json.RawMessage) (any, error) {
		return api.CatalogArchiveResult{Host: "gateway:local", Thread: idA, Archived: true}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	openArchiveDialog(t, a)
	v := a.view()
	mustContain(t, v, "Archive session?", "idle", "another client", "(y/N)")
	golden.RequireEqual(t, []byte(v))

	for _, k := range []tea.KeyMsg{keymap.MustMsg("enter"), keymap.MustMsg("esc"), keymap.MustMsg("n"), keymap.MustMsg("Y"), keymap.MustMsg(" ")} {
		if !a.confirm.open {
			openArchiveDialog(t, a)
		}
		a.clk.advance(time.Second) // past the grace of a dialog opened by a reply
		a.send(k)
		if a.confirm.open {
			t.Fatalf("%q left the dialog open", k.String())
		}
		if n := len(callsTo[api.CatalogArchiveParams](rt, api.MethodCatalogArchive)); n != 0 {
			t.Fatalf("%q archived", k.String())
		}
	}
	openArchiveDialog(t, a)
	a.clk.advance(time.Second)
	a.press(a.km.Dialog.Confirm)
	calls := callsTo[api.CatalogArchiveParams](rt, api.MethodCatalogArchive)
	if len(calls) != 1 || calls[0].Thread != idA || calls[0].Host != "gateway:local" || !calls[0].ConfirmNoOtherRunner {
		t.Fatalf("archive calls: %+v", calls)
	}
	mustContain(t, a.view(), "archived 019a0000…a1")
	mustNotContain(t, a.fleet.View(), "fix the flaky tests")
}

func TestDialogOpenedByAReplyIgnoresKeysAtFirst(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogArchive, func(json.RawMessage) (any, error) { return api.CatalogArchiveResult{Archived: true}, nil })
	a := newTestApp(t, rt, 130, 34)
	openArchiveDialog(t, a)
	a.clk.advance(100 * time.Millisecond)
	a.press(a.km.Dialog.Confirm) // typed ahead: must not answer
	a.send(keymap.MustMsg("enter"))
	if !a.confirm.open || len(callsTo[api.CatalogArchiveParams](rt, api.MethodCatalogArchive)) != 0 {
		t.Fatal("a key within the grace answered the dialog")
	}
	a.clk.advance(400 * time.Millisecond)
	a.press(a.km.Dialog.Confirm)
	if a.confirm.open || len(callsTo[api.CatalogArchiveParams](rt, api.MethodCatalogArchive)) != 1 {
		t.Fatal("y after the grace did not archive")
	}
}

func TestKeyOpenedCancelDialogAnswersAtOnceAndCancelsTheTurn(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadCancel, func(json.RawMessage) (any, error) {
		return api.ThreadCancelResult{Thread: model.ThreadInfo{ID: idShell}, TurnID: "turn-9"}, nil
	})
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) { // a turn runs: x applies
		return api.ThreadListResult{Threads: []model.ThreadInfo{{ID: idShell, Harness: "shell", Status: model.ThreadActive, UpdatedAt: epoch}}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.Thread.Cancel)
	mustContain(t, a.view(), "Cancel the running turn?")
	a.send(keymap.MustMsg("esc"))
	if len(callsTo[api.ThreadCancelParams](rt, api.MethodThreadCancel)) != 0 {
		t.Fatal("esc cancelled the turn")
	}
	a.press(a.km.Thread.Cancel)
	a.press(a.km.Dialog.Confirm)
	calls := callsTo[api.ThreadCancelParams](rt, api.MethodThreadCancel)
	if len(calls) != 1 || calls[0].Thread != idShell {
		t.Fatalf("cancel calls %+v", calls)
	}
	mustContain(t, a.view(), "cancelled turn turn-9")
}

func TestArchiveRefusesThreadsOutsideTheCatalog(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.Thread.Archive)
	if a.confirm.open {
		t.Fatal("archive offered for an external thread")
	}
	mustContain(t, a.view(), `! archive: 11111111…55 runs on harness "shell"`)
}

func TestSendMessageForm(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadSend, func(json.RawMessage) (any, error) { return api.ThreadSendResult{TurnID: "turn-3"}, nil })
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.Thread.Send)
	mustContain(t, a.view(), "Send a message", "THREAD_BUSY")
	a.send(keyOf(a.km.Input.Submit)) // empty: refused in the form
	mustContain(t, a.view(), "write a message first")
	a.typeText("please add a test")
	a.send(keyOf(a.km.Input.Submit))
	calls := callsTo[api.ThreadSendParams](rt, api.MethodThreadSend)
	if len(calls) != 1 || calls[0].Thread != idA || calls[0].Message != "please add a test" {
		t.Fatalf("send calls %+v", calls)
	}
	mustContain(t, a.view(), "sent to 019a0000…a1")
}

func TestDelegateFormPicksAHarnessAndRecordsTheParent(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodDelegateStart, func(json.RawMessage) (any, error) {
		return api.DelegateStartResult{Thread: model.ThreadInfo{ID: idChild, Harness: "shell"}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.Thread.Delegate)
	v := a.view()
	mustContain(t, v, "Delegate", "[codex]", "shell", idShell)
	a.send(keyOf(a.km.Input.NextPick))
	mustContain(t, a.view(), "[shell]")
	a.send(keyOf(a.km.Input.NextField))
	a.typeText("summarise the logs")
	a.send(keyOf(a.km.Input.NextField))
	a.typeText("https://example.com/a https://example.com/b")
	a.send(keyOf(a.km.Input.Submit))
	calls := callsTo[api.DelegateStartParams](rt, api.MethodDelegateStart)
	if len(calls) != 1 {
		t.Fatalf("delegate calls %+v", calls)
	}
	p := calls[0]
	if p.Harness != "shell" || p.Task != "summarise the logs" || p.Caller.ParentThread != idShell || len(p.Refs) != 2 || p.Cwd != "/work" {
		t.Fatalf("delegate params %+v", p)
	}
	mustContain(t, a.view(), "delegated to shell: "+idChild)
}

func TestWatchFormRegistersAWatchForTheOperator(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadWatch, func(json.RawMessage) (any, error) {
		return api.WatchResult{State: model.WatchWatching, Watch: &model.Watch{ID: "w9", Notify: "client:local"}}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Down) // a running thread: an idle one has nothing to watch
	a.press(a.km.Thread.Watch)
	a.send(keyOf(a.km.Input.NextField))
	a.typeText("nonsense")
	a.send(keyOf(a.km.Input.Submit))
	mustContain(t, a.view(), "timeout: give a duration")
	for range len("nonsense") {
		a.send(keymap.MustMsg("backspace"))
	}
	a.typeText("2h")
	a.send(keyOf(a.km.Input.Submit))
	calls := callsTo[api.ThreadWatchParams](rt, api.MethodThreadWatch)
	if len(calls) != 1 || calls[0].Thread != idB || calls[0].Notify != "" || calls[0].TimeoutMs != (2*time.Hour).Milliseconds() {
		t.Fatalf("watch calls %+v", calls)
	}
	mustContain(t, a.view(), `watching 019a0000…b2 "write the release notes"; client:local is notified`)
}

// Scenario: issue 24 item 6. w on a thread at rest says there is nothing to watch at once,
// without a form to fill in first.
func TestWatchOnAnIdleThreadSaysSoBeforeAnyForm(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.Thread.Watch)
	if a.form.open {
		t.Fatal("a form opened for an idle thread")
	}
	mustContain(t, a.view(), "nothing to watch: 019a0000…a1")
}

func TestOpenThreadByIDOrLink(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.Global.Open)
	a.typeText("not-a-thread")
	a.send(keyOf(a.km.Input.Submit))
	mustContain(t, a.view(), "INVALID_ARGUMENT")
	a.send(keyOf(a.km.Input.Cancel))
	a.press(a.km.Global.Open)
	a.typeText("codex://threads/" + idShell)
	a.send(keyOf(a.km.Input.Submit))
	if a.focus != paneTranscript || a.transcript.ref.ID != idShell || a.transcript.ref.catalog() {
		t.Fatalf("open: focus %v ref %+v", a.focus, a.transcript.ref)
	}
	mustContain(t, a.transcript.View(), "count the files")
	// A thread the runtime does not know is looked up in the catalog.
	unknown := "019a0000-0000-7000-8000-0000000000ff"
	a.press(a.km.Global.Open)
	a.typeText(unknown)
	a.send(keyOf(a.km.Input.Submit))
	if a.transcript.ref.ID != unknown || a.transcript.ref.Host != "gateway:local" {
		t.Fatalf("unknown thread ref %+v", a.transcript.ref)
	}
}

func TestWatchListsAreTwoInstancesWithTheirOwnReplies(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 200, 34)
	mustContain(t, a.watches.View(), "● watching 11111111…55 → client:local", "ends in 29m")
	mustContain(t, a.undeliv.View(), "✗ 019a0000…a1", "recipient thread is gone")
	mustNotContain(t, a.watches.View(), "recipient thread is gone")
	// A reply addressed to one list never lands in the other.
	a.send(paneMsg{to: paneUndeliverable, inner: listLoadedMsg[model.Watch]{seq: a.undeliv.seq, items: nil}})
	mustContain(t, a.undeliv.View(), "nothing undeliverable")
	mustContain(t, a.watches.View(), "● watching")
	// Enter opens the watched thread.
	a.press(a.km.Global.Watches)
	a.press(a.km.List.Select)
	if a.transcript.ref.ID != idShell {
		t.Fatalf("enter on a watch opened %+v", a.transcript.ref)
	}
}

func TestWatchNotificationLandsInTheStatusBar(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	rt.on(api.MethodClientEvents, func(raw json.RawMessage) (any, error) {
		if strings.Contains(string(raw), `"after":"c1"`) {
			return api.ClientEventsResult{Events: []model.ClientEvent{}}, nil
		}
		return api.ClientEventsResult{Events: []model.ClientEvent{{Cursor: "c1", Type: "watch.notification", Thread: idShell, Result: model.ResultCompleted}}, NextCursor: "c1"}, nil
	})
	a.send(EventMsg(api.Event{Type: api.EventClientLog, Thread: "local"}))
	mustContain(t, a.view(), "notified: 11111111…55 completed")
	// Another client's log is not the operator's business.
	a.status.set(levelInfo, "")
	a.send(EventMsg(api.Event{Type: api.EventClientLog, Thread: "bot"}))
	mustNotContain(t, a.view(), "notified:")
}

func TestRuntimeLossKeepsTheScreenUsableAndReconnectReloads(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 200, 34)
	down := model.Errorf(model.CodeRuntimeUnreachable, "", "lost the connection to the runtime")
	a.send(DisconnectedMsg(down))
	mustContain(t, a.view(), "! runtime unreachable: RUNTIME_UNREACHABLE")
	rt.on(api.MethodThreadSend, func(json.RawMessage) (any, error) { return nil, down })
	a.press(a.km.Thread.Send)
	a.typeText("hello")
	a.send(keyOf(a.km.Input.Submit))
	mustContain(t, a.view(), `send to 019a0000…a1 "fix the flaky tests": RUNTIME_UNREACHABLE`)
	a.press(a.km.List.Down) // still moves
	if ref, _ := a.fleet.Selected(); ref.ID != idB {
		t.Fatalf("cursor stuck on %s", ref.ID)
	}
	n := len(callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions))
	a.send(ConnectedMsg("unix:///home/runtime.sock"))
	mustContain(t, a.view(), "reconnected to the runtime")
	if m := len(callsTo[api.CatalogSessionsParams](rt, api.MethodCatalogSessions)); m != n+1 {
		t.Fatalf("reconnect did not reload the fleet (%d -> %d)", n, m)
	}
}

func TestUnreadableThreadAndFailingCatalogDoNotBreakTheApp(t *testing.T) {
	t.Parallel()
	rt := newFake()
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) { return nil, errors.New("boom") })
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) { return nil, model.Errorf(model.CodeInternal, "", "catalog down") })
	rt.on(api.MethodThreadList, func(json.RawMessage) (any, error) { return api.ThreadListResult{}, nil })
	a := newTestApp(t, rt, 100, 30)
	v := a.view()
	mustContain(t, v, "codexhost threads", "no sessions")
	a.send(threadSelectedMsg{ref: threadRef{ID: idShell}})
	mustContain(t, a.transcript.View(), "! INTERNAL_ERROR: no fake for thread.read")
}

func TestQuitKeysAndForceQuitFromInputs(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	isQuit := func(cmd tea.Cmd) bool {
		if cmd == nil {
			return false
		}
		_, ok := cmd().(tea.QuitMsg)
		return ok
	}
	a.press(a.km.Fleet.Search)
	if _, cmd := a.Update(keyOf(a.km.Global.Quit)); isQuit(cmd) {
		t.Fatal("q quit while typing a search")
	}
	if _, cmd := a.Update(keyOf(a.km.Global.ForceQuit)); !isQuit(cmd) {
		t.Fatal("ctrl+c did not quit from the search line")
	}
}

func TestHelpViewIsBuiltFromTheKeymap(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	km := keymap.Default()
	if err := keymap.Apply(&km, map[string]any{"thread.archive": "A", "thread.cancel": keymap.Disabled}); err != nil {
		t.Fatal(err)
	}
	a := newTestApp(t, rt, 130, 34, func(o *Options) { o.Keys = km })
	a.press(a.km.Global.Help)
	v := a.view()
	mustContain(t, v, "A          archive", "send message", "Selected thread")
	mustNotContain(t, v, "cancel turn")
	a.press(a.km.Global.Help)
	if a.showHelp {
		t.Fatal("help did not close")
	}
	// The rebound key archives; the old one does not.
	a.send(keymap.MustMsg("a"))
	if a.confirm.open {
		t.Fatal("the old archive key still works")
	}
	a.press(a.km.Thread.Archive)
	if !a.confirm.open {
		t.Fatal("the rebound archive key does nothing")
	}
}

func TestLayoutGoldens(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ w, h int }{{80, 24}, {100, 30}, {130, 34}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			rt := newFake()
			fleetFixture(rt)
			a := newTestApp(t, rt, sz.w, sz.h)
			golden.RequireEqual(t, []byte(a.view()))
		})
	}
}

func TestTooSmallTerminalSaysSo(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 79, 24)
	mustContain(t, a.view(), "terminal too small", "79×24", "80×24")
	a.send(tea.WindowSizeMsg{Width: 80, Height: 23})
	mustContain(t, a.view(), "80×23")
	a.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	mustNotContain(t, a.view(), "too small")
}

func TestCompactLayoutShowsTheFocusedDetailPane(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 100, 30)
	mustContain(t, a.view(), "2 Transcript")
	mustNotContain(t, a.view(), "3 Lineage")
	a.press(a.km.Global.Lineage)
	mustContain(t, a.view(), "▸ 3 Lineage")
	mustNotContain(t, a.view(), "2 Transcript")
	a.send(tea.WindowSizeMsg{Width: 130, Height: 34})
	mustContain(t, a.view(), "2 Transcript", "▸ 3 Lineage", "4 Watches", "5 Undeliverable")
}

func TestGlyphsCarryFocusCursorAndDangerWithoutColour(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	v := a.view()
	if strings.Contains(v, "\x1b[") {
		t.Fatal("colour escapes under the Ascii profile")
	}
	mustContain(t, v, "┏━ ▸ 1 Fleet", "› ○ idle      fix the flaky tests", "! APP_SERVER_UNAVAILABLE")
	a.press(a.km.Global.NextPane)
	v = a.view()
	mustContain(t, v, "╭─ 1 Fleet", "┏━ ▸ 2 Transcript")
}

// TestNoLineIsWiderThanTheTerminal sweeps sizes and states: every line of every frame fits.
func TestNoLineIsWiderThanTheTerminal(t *testing.T) {
	t.Parallel()
	newRuntime := func() *fakeRuntime {
		rt := newFake()
		fleetFixture(rt)
		rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
			long := strings.Repeat("a very long title with 宽字符 and emoji 🚀 ", 8)
			return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "gateway:local", Sessions: []api.CatalogSession{
				{ID: idA, Title: long, Cwd: "/" + strings.Repeat("deep/", 30), GitBranch: strings.Repeat("feature-", 8), Status: model.ThreadIdle, UpdatedAt: epoch},
			}, NextCursor: "more"}, {Host: "node:lab", Error: &model.Error{Code: "X", Message: strings.Repeat("error words ", 30)}}}}, nil
		})
		return rt
	}
	widths := []int{1, 10, 20, 40, 60, 79}
	step := 1
	if testing.Short() {
		step = 7
	}
	for w := 80; w <= 200; w += step {
		widths = append(widths, w)
	}
	states := map[string]func(a *testApp){
		"plain": func(*testApp) {},
		"help":  func(a *testApp) { a.press(a.km.Global.Help) },
		"delegate": func(a *testApp) {
			a.press(a.km.Thread.Delegate)
			a.typeText(strings.Repeat("long task text ", 20))
		},
		"archive": func(a *testApp) { a.press(a.km.Thread.Archive) },
		"search": func(a *testApp) {
			a.press(a.km.Fleet.Search)
			a.typeText(strings.Repeat("x", 300))
		},
		"lineage": func(a *testApp) { a.press(a.km.Global.Lineage) },
	}
	// One subtest per state, each with its own runtime, so that the states draw side by side.
	for name, setup := range states {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := newTestApp(t, newRuntime(), 130, 34)
			a.send(threadSelectedMsg{ref: threadRef{ID: idA, Host: "gateway:local"}})
			setup(a)
			for _, w := range widths {
				for _, h := range []int{1, 12, 24, 30, 50} {
					a.send(tea.WindowSizeMsg{Width: w, Height: h})
					lines := strings.Split(a.view(), "\n")
					if len(lines) != h {
						t.Fatalf("%s at %dx%d: %d lines", name, w, h, len(lines))
					}
					for i, l := range lines {
						if lw := lipgloss.Width(l); lw > w {
							t.Fatalf("%s at %dx%d: line %d is %d wide: %q", name, w, h, i, lw, l)
						}
					}
				}
			}
		})
	}
}

// Scenario: S003-20 — a paired node's row offers no archive: the key explains why and asks
// the runtime nothing, and the help bar leaves archive out.
func TestNodeRowOffersNoArchive(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogHosts, func(json.RawMessage) (any, error) {
		return api.CatalogHostsResult{Hosts: []api.CatalogHost{{ID: "node:lab", Kind: api.CatalogHostNode, Health: api.CatalogHealth{State: api.CatalogHealthOK},
			Capabilities: []string{api.CatalogCapList, api.CatalogCapTranscript}}}}, nil
	})
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "node:lab", Sessions: []api.CatalogSession{
			{ID: idA, Title: "a node session", Cwd: "/src/app", Status: model.ThreadIdle, UpdatedAt: epoch.Add(-time.Minute)}}}}}, nil
	})
	// Wide enough for the whole help bar, which offers archive on a local row.
	local := newFake()
	fleetFixture(local)
	mustContain(t, newTestApp(t, local, 300, 34).view(), "archive")
	a := newTestApp(t, rt, 300, 34)
	mustContain(t, a.fleet.View(), "a node session")
	mustNotContain(t, a.view(), "archive")
	reads := len(callsTo[api.ThreadReadParams](rt, api.MethodThreadRead))
	a.press(a.km.Thread.Archive)
	if a.confirm.open {
		t.Fatal("archive dialog opened for a node row")
	}
	mustContain(t, a.view(), "archive it on the node itself")
	if len(callsTo[api.ThreadReadParams](rt, api.MethodThreadRead)) != reads || len(callsTo[api.CatalogArchiveParams](rt, api.MethodCatalogArchive)) != 0 {
		t.Fatal("archive of a node row reached the runtime")
	}
}

// A paired node's session has no lineage here: the lineage pane says where it is kept and
// asks the runtime nothing (no THREAD_NOT_FOUND error for a thread that is not ours).
func TestLineageOfANodeSessionSaysWhereItIsKept(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodCatalogSessions, func(json.RawMessage) (any, error) {
		return api.CatalogSessionsResult{Hosts: []api.CatalogHostSessions{{Host: "node:lab", Sessions: []api.CatalogSession{
			{ID: idA, Title: "a node session", Status: model.ThreadIdle, UpdatedAt: epoch}}}}}, nil
	})
	lineageCalls := 0
	rt.on(api.MethodThreadLineage, func(json.RawMessage) (any, error) {
		lineageCalls++
		return nil, errors.New("no thread")
	})
	a := newTestApp(t, rt, 130, 34)
	a.clk.advance(time.Second)
	a.send(selectSettledMsg{seq: a.fleet.selSeq})
	mustContain(t, a.lineage.View(), "paired node node:lab")
	mustNotContain(t, a.lineage.View(), "no thread")
	if lineageCalls != 0 {
		t.Fatalf("lineage of a node session was looked up %d times", lineageCalls)
	}
}
