package appserver

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
)

// These tests drive the real `codex app-server` against the loopback fake model.

type codexEnv struct {
	bin, home string
	fake      *fakemodel.Server
}

func newCodexEnv(t testing.TB) codexEnv {
	t.Helper()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	return codexEnv{bin: bin, home: codextest.NewHome(t, fake.URL()), fake: fake}
}

func (e codexEnv) start(t testing.TB) *Client {
	t.Helper()
	c, err := Start(context.Background(), Config{
		Bin:       e.bin,
		Env:       codextest.Env(e.home),
		Dir:       e.home,
		StderrLog: filepath.Join(t.TempDir(), "app-server.log"),
	})
	if err != nil {
		t.Fatalf("start app-server: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// runTurn starts a turn and waits for its turn/completed notification.
func runTurn(t testing.TB, c *Client, threadID, text string) Turn {
	t.Helper()
	done, stop := c.Subscribe(func(m string) bool { return m == "turn/completed" })
	defer stop()
	started, err := c.TurnStart(context.Background(), TurnStartParams{ThreadID: threadID, Input: TextInput(text)})
	if err != nil {
		t.Fatalf("turn/start: %v", err)
	}
	return waitTurn(t, done, threadID, started.ID)
}

func waitTurn(t testing.TB, notes <-chan Notification, threadID, turnID string) Turn {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case n := <-notes:
			var ev TurnEvent
			if err := json.Unmarshal(n.Params, &ev); err != nil {
				t.Fatalf("decode turn/completed: %v", err)
			}
			if ev.ThreadID == threadID && ev.Turn.ID == turnID {
				return ev.Turn
			}
		case <-deadline:
			t.Fatalf("turn %s of thread %s did not complete", turnID, threadID)
		}
	}
}

func newThread(t testing.TB, c *Client) Thread {
	t.Helper()
	res, err := c.ThreadStart(context.Background(), ThreadStartParams{Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("thread/start: %v", err)
	}
	return res.Thread
}

func TestRealStartTurnListReadAndPage(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	ctx := context.Background()

	th := newThread(t, c)
	empty := newThread(t, c)
	for i, text := range []string{"first question", "second question", "third question"} {
		turn := runTurn(t, c, th.ID, text)
		if turn.Status != TurnCompleted {
			t.Fatalf("turn %d status %s", i, turn.Status)
		}
		if len(turn.Items) == 0 || !strings.Contains(turn.Items[len(turn.Items)-1].Text, "to: "+text) {
			t.Fatalf("turn %d did not carry the fake reply: %+v", i, turn.Items)
		}
	}

	list, err := c.ThreadList(ctx, ThreadListParams{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, lt := range list.Data {
		if lt.ID == empty.ID {
			t.Fatal("a thread without turns was listed")
		}
		if lt.ID == th.ID {
			found = true
			if lt.Preview != "first question" || len(lt.Raw) == 0 {
				t.Fatalf("listed thread: preview %q raw %d bytes", lt.Preview, len(lt.Raw))
			}
		}
	}
	if !found {
		t.Fatalf("thread %s not listed", th.ID)
	}

	read, err := c.ThreadRead(ctx, th.ID)
	if err != nil || read.ID != th.ID || read.Status.Type != StatusIdle {
		t.Fatalf("thread/read: %+v %v", read.Status, err)
	}

	// Newest first, one turn per page, following nextCursor to the oldest.
	var texts []string
	cursor := ""
	for page := 0; page < 5; page++ {
		res, err := c.TurnsList(ctx, TurnsListParams{ThreadID: th.ID, Limit: 1, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, turn := range res.Data {
			for _, it := range turn.Items {
				if it.Type == "userMessage" {
					texts = append(texts, it.Content[0].Text)
				}
			}
		}
		if res.NextCursor == nil {
			break
		}
		cursor = *res.NextCursor
	}
	want := []string{"third question", "second question", "first question"}
	if strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("turn pages newest first: got %v want %v", texts, want)
	}

	items, err := c.ItemsList(ctx, ItemsListParams{ThreadID: th.ID, Limit: 100})
	if err != nil || len(items.Data) < 6 {
		t.Fatalf("thread/items/list: %d items, %v", len(items.Data), err)
	}
	loaded, err := c.ThreadLoadedList(ctx)
	if err != nil || !contains(loaded.Data, th.ID) {
		t.Fatalf("thread/loaded/list: %v %v", loaded.Data, err)
	}
}

func TestRealForkEphemeralExcludingTurns(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	th := newThread(t, c)
	runTurn(t, c, th.ID, "hello fork")
	fork, err := c.ThreadFork(context.Background(), ThreadForkParams{ThreadID: th.ID, Ephemeral: true, ExcludeTurns: true})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Thread.ID == th.ID || !fork.Thread.Ephemeral || fork.Thread.ForkedFromID == nil || *fork.Thread.ForkedFromID != th.ID || len(fork.Thread.Turns) != 0 {
		t.Fatalf("fork: %+v", fork.Thread)
	}
	if fork.Model == "" || fork.ModelProvider != "fake" {
		t.Fatalf("fork did not report model and provider: %q %q", fork.Model, fork.ModelProvider)
	}
	// The injected history reaches the model on the fork's next turn.
	if err := c.ThreadInjectItems(context.Background(), fork.Thread.ID, []ResponseItem{UserMessageItem("INJECTED note"), AssistantMessageItem("INJECTED answer")}); err != nil {
		t.Fatal(err)
	}
	runTurn(t, c, fork.Thread.ID, "after inject")
	reqs := env.fake.Requests()
	last, _ := json.Marshal(reqs[len(reqs)-1].JSON["input"])
	if !strings.Contains(string(last), "INJECTED note") || !strings.Contains(string(last), "hello fork") {
		t.Fatalf("fork's model request lacks the source history or injected items: %s", last)
	}
	if _, err := c.ThreadUnsubscribe(context.Background(), fork.Thread.ID); err != nil {
		t.Fatal(err)
	}
}

func TestRealArchiveThenUnarchive(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	ctx := context.Background()
	th := newThread(t, c)
	runTurn(t, c, th.ID, "to be archived")
	if err := c.ThreadArchive(ctx, th.ID); err != nil {
		t.Fatal(err)
	}
	unarchivedOnly, _ := c.ThreadList(ctx, ThreadListParams{})
	if containsThread(unarchivedOnly.Data, th.ID) {
		t.Fatal("archived thread still listed among unarchived threads")
	}
	archived := true
	arch, _ := c.ThreadList(ctx, ThreadListParams{Archived: &archived})
	if !containsThread(arch.Data, th.ID) {
		t.Fatal("archived thread not in the archived list")
	}
	back, err := c.ThreadUnarchive(ctx, th.ID)
	if err != nil || back.ID != th.ID {
		t.Fatalf("unarchive: %v", err)
	}
	again, _ := c.ThreadList(ctx, ThreadListParams{})
	if !containsThread(again.Data, th.ID) {
		t.Fatal("unarchived thread not listed again")
	}
}

func TestRealInterruptSlowTurn(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	th := newThread(t, c)
	env.fake.Enqueue(fakemodel.Slow(50*time.Millisecond, time.Minute))
	notes, stop := c.Subscribe(func(m string) bool { return m == "turn/completed" || m == "item/agentMessage/delta" })
	defer stop()
	turn, err := c.TurnStart(context.Background(), TurnStartParams{ThreadID: th.ID, Input: TextInput("take your time")})
	if err != nil {
		t.Fatal(err)
	}
	// Interrupt once the model is streaming, so the turn is really in flight.
	for n := range notes {
		if n.Method == "item/agentMessage/delta" {
			break
		}
	}
	if err := c.TurnInterrupt(context.Background(), th.ID, turn.ID); err != nil {
		t.Fatal(err)
	}
	done := waitTurn(t, filterMethod(notes, "turn/completed"), th.ID, turn.ID)
	if done.Status != TurnInterrupted {
		t.Fatalf("status after interrupt: %s", done.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := env.fake.WaitDisconnects(ctx, 1); err != nil {
		t.Fatalf("the model stream was not dropped: %v", err)
	}
}

func TestRealFailingProviderFailsTurnAndThread(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	th := newThread(t, c)
	env.fake.Enqueue(fakemodel.HTTPError(500))
	turn := runTurn(t, c, th.ID, "this will fail")
	if turn.Status != TurnFailed || turn.Error == nil || turn.Error.Message == "" {
		t.Fatalf("turn: status %s error %+v", turn.Status, turn.Error)
	}
	read, err := c.ThreadRead(context.Background(), th.ID)
	if err != nil || read.Status.Type != StatusSystemError {
		t.Fatalf("thread status after failure: %+v %v", read.Status, err)
	}
	// The next turn works again.
	if again := runTurn(t, c, th.ID, "again"); again.Status != TurnCompleted {
		t.Fatalf("turn after failure: %s", again.Status)
	}
}

func TestRealSecondAppServerSeesNotLoadedAndCannotResume(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	first := env.start(t)
	th := newThread(t, first)
	runTurn(t, first, th.ID, "held by the first")

	second := env.start(t)
	ctx := context.Background()
	read, err := second.ThreadRead(ctx, th.ID)
	if err != nil || read.Status.Type != StatusNotLoaded {
		t.Fatalf("second sees %+v (%v), want notLoaded", read.Status, err)
	}
	list, err := second.ThreadList(ctx, ThreadListParams{})
	if err != nil || !containsThread(list.Data, th.ID) {
		t.Fatalf("second does not list the thread: %v", err)
	}
	_, err = second.ThreadResume(ctx, ThreadResumeParams{ThreadID: th.ID, ExcludeTurns: true})
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "active writer") {
		t.Fatalf("resume while the first holds it: want an active-writer error, got %v", err)
	}
}

func TestRealKillFailsPendingCallsAndRestart(t *testing.T) {
	t.Parallel()
	env := newCodexEnv(t)
	c := env.start(t)
	th := newThread(t, c)
	env.fake.Enqueue(fakemodel.Hang())
	notes, stop := c.Subscribe(func(m string) bool { return m == "turn/started" })
	defer stop()
	if _, err := c.TurnStart(context.Background(), TurnStartParams{ThreadID: th.ID, Input: TextInput("hang")}); err != nil {
		t.Fatal(err)
	}
	<-notes
	// Kill while a burst of calls is in flight: each either completes or fails with ErrExited,
	// none hangs.
	t0 := time.Now()
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		go func() { _, err := c.ThreadLoadedList(context.Background()); errs <- err }()
	}
	if err := syscall.Kill(c.Pid(), syscall.SIGKILL); err != nil { // the App Server itself dies
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("death of the App Server not detected")
	}
	for i := 0; i < 20; i++ {
		if err := <-errs; err != nil && !errors.Is(err, ErrExited) {
			t.Fatalf("a call during the kill failed with an unclear error: %v", err)
		}
	}
	if _, err := c.ThreadLoadedList(context.Background()); !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "signal: killed") {
		t.Fatalf("call after kill: want ErrExited naming the signal, got %v", err)
	}
	t.Logf("death detected %v", time.Since(t0))
	if err := c.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted %v", time.Since(t0))
	// The new process sees the stored thread, and its hung turn as interrupted.
	read, err := c.ThreadRead(context.Background(), th.ID)
	if err != nil || read.Status.Type != StatusNotLoaded {
		t.Fatalf("after restart: %+v %v", read.Status, err)
	}
	turns, err := c.TurnsList(context.Background(), TurnsListParams{ThreadID: th.ID})
	if err != nil || len(turns.Data) != 1 || turns.Data[0].Status != TurnInterrupted {
		t.Fatalf("killed turn should read as interrupted: %+v %v", turns.Data, err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func containsThread(list []Thread, id string) bool {
	for _, th := range list {
		if th.ID == id {
			return true
		}
	}
	return false
}

func filterMethod(in <-chan Notification, method string) <-chan Notification {
	out := make(chan Notification)
	go func() {
		defer close(out)
		for n := range in {
			if n.Method == method {
				out <- n
			}
		}
	}()
	return out
}
