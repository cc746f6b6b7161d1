package harness

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Reading changes nothing, neither here nor for a thread another Codex process holds, and a
// turn running in that other process does not read as stopped.
func TestNativeReadIsReadOnlyAndOtherProcess(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	owner := env.native(t)
	ctx := context.Background()
	id := owner.start(t)
	firstTurn, _ := owner.run(t, id, "before")
	oc := owner.client(t)

	before := nativeObserve(t, oc, id)
	nativeReadEverything(t, owner, id)
	if after := nativeObserve(t, oc, id); !after.same(before) {
		t.Fatalf("read changed the thread: status %s→%s loaded %v→%v rollout %d→%d bytes",
			before.status, after.status, before.loaded, after.loaded, len(before.rollout), len(after.rollout))
	}

	// A second App Server on the same home: the thread is not loaded there.
	other := env.native(t)
	xc := other.client(t)
	xBefore := nativeObserve(t, xc, id)
	snap := nativeReadEverything(t, other, id)
	if xAfter := nativeObserve(t, xc, id); !xAfter.same(xBefore) || xAfter.status != appserver.StatusNotLoaded || len(xAfter.loaded) != 0 {
		t.Fatalf("read in another process changed the thread: %s %v → %s %v", xBefore.status, xBefore.loaded, xAfter.status, xAfter.loaded)
	}
	if after := nativeObserve(t, oc, id); !after.same(before) {
		t.Fatal("read in another process changed the owner's thread")
	}
	if snap.Info.Status != model.ThreadNotLoaded || snap.Result == nil || snap.Result.Text != "fake reply #1 to: before" {
		t.Fatalf("other process reads %+v result %+v", snap.Info, snap.Result)
	}
	_, err := other.Send(ctx, id, "take over")
	wantCode(t, err, model.CodeFailedPrecondition)
	if !strings.Contains(err.Error(), "another Codex process") {
		t.Fatalf("send to a thread held elsewhere: %v", err)
	}

	env.fake.Enqueue(fakemodel.Slow(50*time.Millisecond, time.Minute))
	running, err := owner.Send(ctx, id, "long one")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.fake.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	snap, err = other.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if lt := snap.Info.LastTurn; snap.Info.Status != model.ThreadNotLoaded || lt == nil || lt.ID != running || lt.Status != model.TurnInProgress {
		t.Fatalf("a turn running in another process reads as %+v (thread %s)", lt, snap.Info.Status)
	}
	if snap.Result == nil || snap.Result.TurnID != firstTurn || snap.Result.Status != model.TurnCompleted {
		t.Fatalf("result while another process runs a turn: %+v", snap.Result)
	}
	if a := other.Active(); len(a) != 0 {
		t.Fatalf("another process's turn listed as active here: %v", a)
	}
	_, err = other.Cancel(ctx, id)
	wantCode(t, err, model.CodeFailedPrecondition)

	if _, err := owner.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	owner.waitEnd(t, id, running)
	snap, err = other.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if lt := snap.Info.LastTurn; lt == nil || lt.ID != running || lt.Status != model.TurnInterrupted || snap.Result.TurnID != running {
		t.Fatalf("a real interrupt in another process reads as %+v, result %+v", lt, snap.Result)
	}
}

func TestNativeRestartAfterKill(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()
	id := n.start(t)
	n.run(t, id, "remember this")

	env.fake.Enqueue(fakemodel.Slow(50*time.Millisecond, time.Minute))
	running, err := n.Send(ctx, id, "cut short")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.fake.WaitRequests(ctx, 2); err != nil {
		t.Fatal(err)
	}
	pid := n.client(t).Pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil { // the App Server itself dies
		t.Fatal(err)
	}
	ev := n.waitEnd(t, id, running)
	if ev.Status != model.ThreadNotLoaded || ev.TurnStatus != model.TurnInterrupted {
		t.Fatalf("death of the App Server reported as %+v", ev)
	}
	if a := n.Active(); len(a) != 0 {
		t.Fatalf("active after the App Server died: %v", a)
	}

	// The next call starts a new App Server, which reads the cut turn as interrupted.
	snap, err := n.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != model.ThreadNotLoaded || snap.Info.LastTurn.ID != running || snap.Info.LastTurn.Status != model.TurnInterrupted {
		t.Fatalf("after restart: %+v last %+v", snap.Info, snap.Info.LastTurn)
	}
	if newPid := n.client(t).Pid(); newPid == pid || n.starts.Load() != 2 {
		t.Fatalf("pid %d → %d after %d starts", pid, newPid, n.starts.Load())
	}
	// A Codex process that opened the thread after the death holds its lock, but it is not
	// running the cut turn, which still reads as interrupted.
	other := env.native(t)
	if _, err := other.client(t).ThreadResume(ctx, appserver.ThreadResumeParams{ThreadID: string(id), ExcludeTurns: true}); err != nil {
		t.Fatal(err)
	}
	snap, err = n.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if lt := snap.Info.LastTurn; lt.ID != running || lt.Status != model.TurnInterrupted {
		t.Fatalf("a cut turn reads as %+v while a later process holds the thread", lt)
	}
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}

	// Send resumes the thread in the new process; the model sees the earlier history.
	_, end := n.run(t, id, "after restart")
	if end.TurnStatus != model.TurnCompleted || end.Status != model.ThreadIdle {
		t.Fatalf("turn after restart: %+v", end)
	}
	reqs := env.fake.Requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(string(last.Body), "remember this") || last.UserText != "after restart" {
		t.Fatalf("the resumed thread lost its history: %s", last.Body)
	}
	if n.starts.Load() != 2 {
		t.Fatalf("%d App Server starts, want 2", n.starts.Load())
	}
}

func TestNativeFailingProvider(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	id := n.start(t)
	env.fake.Enqueue(fakemodel.HTTPError(500))
	turnID, end := n.run(t, id, "this will fail")
	if end.TurnStatus != model.TurnFailed || end.Status != model.ThreadSystemError {
		t.Fatalf("end event %+v", end)
	}
	snap, err := n.Read(context.Background(), id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != model.ThreadSystemError {
		t.Fatalf("thread status %s", snap.Info.Status)
	}
	if r := snap.Result; r == nil || r.TurnID != turnID || r.Status != model.TurnFailed || r.Error == "" {
		t.Fatalf("result %+v", r)
	}
	if lt := snap.Info.LastTurn; lt.Status != model.TurnFailed || lt.Error == "" {
		t.Fatalf("last turn %+v", lt)
	}
}

func TestNativeUnknownThreadLazyStartAndClose(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()

	// Concurrent first calls share one App Server.
	clients := make([]*appserver.Client, 8)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i], _ = n.Client(ctx)
		}()
	}
	wg.Wait()
	for _, c := range clients {
		if c == nil || c != clients[0] {
			t.Fatal("concurrent first calls got different or no clients")
		}
	}
	if s := n.starts.Load(); s != 1 {
		t.Fatalf("%d App Servers started, want 1", s)
	}

	unknown := model.ThreadID("01a00000-0000-7000-8000-000000000000")
	_, err := n.Send(ctx, unknown, "anyone?")
	wantCode(t, err, model.CodeThreadNotFound)
	_, err = n.Read(ctx, unknown, ReadRequest{})
	wantCode(t, err, model.CodeThreadNotFound)
	_, err = n.Cancel(ctx, unknown)
	wantCode(t, err, model.CodeThreadNotFound)
	if n.Owns(ctx, unknown) {
		t.Fatal("owns an unknown thread")
	}
	id := n.start(t)
	if !n.Owns(ctx, id) {
		t.Fatal("does not own its own thread")
	}
	_, err = n.Send(ctx, id, "  ")
	wantCode(t, err, model.CodeInvalidArgument)
	_, err = n.Cancel(ctx, id)
	wantCode(t, err, model.CodeFailedPrecondition)

	pid := clients[0].Pid()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("App Server %d still there after Close: %v", pid, err)
	}
	_, err = n.Send(ctx, id, "after close")
	wantCode(t, err, model.CodeAppServerUnavailable)
	if s := n.starts.Load(); s != 1 {
		t.Fatalf("Close was followed by a restart (%d starts)", s)
	}
}

// The live state follows notifications in any order the App Server may send them relative to
// the turn/start response. No App Server is needed.
func TestNativeTrackingOrder(t *testing.T) {
	t.Parallel()
	events := make(chan Event, 64)
	n := NewNative(NativeOptions{OnEvent: func(ev Event) { events <- ev }})
	conn := &nativeConn{watched: make(chan struct{})}
	n.conn = conn
	id := model.ThreadID("01a00000-0000-7000-8000-000000000001")
	feed := func(method string, params map[string]any) {
		params["threadId"] = string(id)
		b, _ := json.Marshal(params)
		n.apply(conn, appserver.Notification{Method: method, Params: b})
	}
	status := func(typ string, flags ...string) map[string]any {
		return map[string]any{"status": map[string]any{"type": typ, "activeFlags": flags}}
	}
	turn := func(id, st string) map[string]any {
		return map[string]any{"turn": map[string]any{"id": id, "status": st}}
	}
	response := func(turnID string) {
		n.mu.Lock()
		n.turnStartedLocked(id, turnID)
		n.mu.Unlock()
	}
	next := func(want Event) {
		t.Helper()
		select {
		case got := <-events:
			got.At = time.Time{}
			if got != want {
				t.Fatalf("event %+v, want %+v", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event, want %+v", want)
		}
	}
	active := func(turnID string) Event {
		return Event{Thread: id, Status: model.ThreadActive, TurnID: turnID, TurnStatus: model.TurnInProgress}
	}

	// Notifications before the response: the late response must not revive the turn.
	feed("thread/status/changed", status("active"))
	feed("turn/started", turn("t1", "inProgress"))
	feed("thread/status/changed", status("idle"))
	if st, _ := n.tracked(nil, id); st.status != model.ThreadActive || !slices.Equal(n.Active(), []model.ThreadID{id}) {
		t.Fatalf("idle before turn/completed ended the turn early: %+v", st)
	}
	feed("turn/completed", turn("t1", "completed"))
	response("t1")
	next(active("t1"))
	next(Event{Thread: id, Status: model.ThreadIdle, TurnID: "t1", TurnStatus: model.TurnCompleted})
	if a := n.Active(); len(a) != 0 {
		t.Fatalf("a late turn/start response revived the turn: %v", a)
	}

	// Response first; a failed turn leaves systemError; an approval wait is reported.
	response("t2")
	feed("thread/status/changed", status("active"))
	feed("turn/started", turn("t2", "inProgress"))
	feed("thread/status/changed", status("active", "waitingOnApproval"))
	feed("thread/status/changed", status("systemError"))
	feed("turn/completed", turn("t2", "failed"))
	next(active("t2"))
	next(Event{Thread: id, Status: model.ThreadActive, TurnID: "t2"})
	next(Event{Thread: id, Status: model.ThreadSystemError, TurnID: "t2", TurnStatus: model.TurnFailed})

	// A process that dies mid-turn takes the thread and ends the turn as interrupted.
	response("t3")
	next(active("t3"))
	n.retire(conn)
	next(Event{Thread: id, Status: model.ThreadNotLoaded, TurnID: "t3", TurnStatus: model.TurnInterrupted})
	if a := n.Active(); len(a) != 0 {
		t.Fatalf("active after the process died: %v", a)
	}
	// Notifications of a retired process are ignored.
	feed("turn/started", turn("t4", "inProgress"))
	select {
	case ev := <-events:
		t.Fatalf("event from a retired process: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestNativeTitle(t *testing.T) {
	t.Parallel()
	name := "  named  "
	long := strings.Repeat("é", 100)
	for _, c := range []struct {
		th   appserver.Thread
		want string
	}{
		{appserver.Thread{Name: &name, Preview: "preview"}, "named"},
		{appserver.Thread{Preview: "fix the\n  build "}, "fix the build"},
		{appserver.Thread{Preview: long}, strings.Repeat("é", 79) + "…"},
	} {
		if got := nativeTitle(c.th); got != c.want {
			t.Fatalf("title %q, want %q", got, c.want)
		}
	}
}

func TestNativeCursorChecks(t *testing.T) {
	t.Parallel()
	id := model.ThreadID("01a00000-0000-7000-8000-000000000001")
	two := 2
	enc := nativeCursor{Thread: string(id), C: "x", T: "t", N: &two}.encode()
	got, err := nativeDecodeCursor(enc, id)
	if err != nil || got.C != "x" || got.T != "t" || got.N == nil || *got.N != 2 {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	zero := 0
	for _, bad := range []string{
		"x", nativeCursorPrefix + "!!",
		nativeCursor{Thread: "01a00000-0000-7000-8000-000000000002"}.encode(),
		nativeCursor{Thread: string(id), T: "t", N: &zero}.encode(),
		nativeCursor{Thread: string(id), N: &two}.encode(),
	} {
		if _, err := nativeDecodeCursor(bad, id); !model.IsCode(err, model.CodeInvalidArgument) {
			t.Fatalf("cursor %q accepted: %v", bad, err)
		}
	}
}
