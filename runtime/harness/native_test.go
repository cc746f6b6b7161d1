package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codexhost/codexhost/internal/testkit/codextest"
	"github.com/codexhost/codexhost/internal/testkit/fakemodel"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// These tests drive the real `codex app-server` against the loopback fake model.

const nativeWait = 30 * time.Second

type nativeEnv struct {
	fake *fakemodel.Server
	home string
	bin  string
}

func newNativeEnv(t *testing.T) *nativeEnv {
	t.Helper()
	bin := codextest.CodexBin(t)
	fake := fakemodel.Start(t)
	return &nativeEnv{fake: fake, home: codextest.NewHome(t, fake.URL()), bin: bin}
}

// nativeUnder is one Native on the env's home, with its events and App Server start count.
type nativeUnder struct {
	*Native
	events chan Event
	starts atomic.Int32
}

func (e *nativeEnv) native(t *testing.T) *nativeUnder {
	t.Helper()
	u := &nativeUnder{events: make(chan Event, 4096)}
	log := filepath.Join(t.TempDir(), "app-server.log")
	u.Native = NewNative(NativeOptions{
		Start: func(ctx context.Context) (*appserver.Client, error) {
			u.starts.Add(1)
			return appserver.Start(ctx, appserver.Config{Bin: e.bin, Env: codextest.Env(e.home), Dir: e.home, StderrLog: log})
		},
		OnEvent: func(ev Event) { u.events <- ev },
		// Read-only keeps the fake's turns harmless; never means no approval is ever asked.
		Approval: "never",
		Sandbox:  "read-only",
	})
	t.Cleanup(func() { _ = u.Close() })
	return u
}

// waitEvent returns the first event matching ok, dropping the others.
func (u *nativeUnder) waitEvent(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	deadline := time.After(nativeWait)
	for {
		select {
		case ev := <-u.events:
			if ok(ev) {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event: %s", what)
		}
	}
}

// waitEnd waits for the end of a turn and returns its event.
func (u *nativeUnder) waitEnd(t *testing.T, id model.ThreadID, turnID string) Event {
	t.Helper()
	return u.waitEvent(t, "end of turn "+turnID, func(ev Event) bool {
		return ev.Thread == id && ev.TurnID == turnID && ev.TurnStatus != "" && ev.TurnStatus != model.TurnInProgress
	})
}

// run sends text and waits for the turn to end.
func (u *nativeUnder) run(t *testing.T, id model.ThreadID, text string) (string, Event) {
	t.Helper()
	turnID, err := u.Send(context.Background(), id, text)
	if err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
	return turnID, u.waitEnd(t, id, turnID)
}

func (u *nativeUnder) start(t *testing.T) model.ThreadID {
	t.Helper()
	id, err := u.Start(context.Background(), StartRequest{Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return id
}

func (u *nativeUnder) client(t *testing.T) *appserver.Client {
	t.Helper()
	c, err := u.Client(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantCode(t *testing.T, err error, code model.Code) {
	t.Helper()
	if !model.IsCode(err, code) {
		t.Fatalf("want %s, got %v", code, err)
	}
	if me := model.AsError(err); me.Hint == "" {
		t.Fatalf("%s without a hint: %v", code, err)
	}
}

func TestNativeStartSendCompletes(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()
	if n.starts.Load() != 0 {
		t.Fatal("the App Server started before it was needed")
	}
	cwd := t.TempDir()
	id, err := n.Start(ctx, StartRequest{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	// A thread without a turn exists only in memory; it still reads as idle and empty.
	snap, err := n.Read(ctx, id, ReadRequest{Messages: true})
	if err != nil {
		t.Fatalf("read a thread without turns: %v", err)
	}
	if snap.Info.Status != model.ThreadIdle || snap.Info.LastTurn != nil || snap.Result != nil || len(snap.Messages) != 0 || snap.NextCursor != "" {
		t.Fatalf("fresh thread: %+v", snap)
	}

	turnID, err := n.Send(ctx, id, "hello")
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	for {
		ev := n.waitEvent(t, "events of the turn", func(ev Event) bool { return ev.Thread == id })
		evs = append(evs, ev)
		if ev.TurnStatus != "" && ev.TurnStatus != model.TurnInProgress {
			break
		}
	}
	first, last := evs[0], evs[len(evs)-1]
	if first.Status != model.ThreadActive || first.TurnID != turnID || first.TurnStatus != model.TurnInProgress || first.At.IsZero() {
		t.Fatalf("first event %+v, want active with turn %s in progress", first, turnID)
	}
	if last.Status != model.ThreadIdle || last.TurnID != turnID || last.TurnStatus != model.TurnCompleted {
		t.Fatalf("last event %+v, want idle with turn %s completed", last, turnID)
	}
	progress := 0
	for _, ev := range evs[1 : len(evs)-1] {
		if ev.Status != model.ThreadActive || ev.TurnStatus != "" {
			t.Fatalf("the thread read as stopped before its turn completed: %+v", evs)
		}
		if ev.Progress && ev.TurnID == turnID {
			progress++
		}
	}
	// The user message and the reply each grow the transcript while the turn runs.
	if progress < 2 {
		t.Fatalf("%d progress events during the turn, want one per message: %+v", progress, evs)
	}
	if a := n.Active(); len(a) != 0 {
		t.Fatalf("active after completion: %v", a)
	}

	snap, err = n.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	info := snap.Info
	if info.ID != string(id) || info.Link != "codex://threads/"+string(id) || info.Harness != "codex" || info.Status != model.ThreadIdle {
		t.Fatalf("info: %+v", info)
	}
	if info.Title != "hello" || info.Cwd != cwd || info.Model != "mock-model" || info.WaitingOnApproval {
		t.Fatalf("info: title %q cwd %q model %q", info.Title, info.Cwd, info.Model)
	}
	if since := time.Since(info.CreatedAt); since < 0 || since > time.Minute || info.UpdatedAt.Before(info.CreatedAt) {
		t.Fatalf("created %v updated %v", info.CreatedAt, info.UpdatedAt)
	}
	if lt := info.LastTurn; lt == nil || lt.ID != turnID || lt.Status != model.TurnCompleted || lt.StartedAt == nil || lt.CompletedAt == nil {
		t.Fatalf("last turn %+v", lt)
	}
	want := model.Result{TurnID: turnID, Status: model.TurnCompleted, Text: "fake reply #1 to: hello"}
	if snap.Result == nil || *snap.Result != want {
		t.Fatalf("result %+v, want %+v", snap.Result, want)
	}
	if snap.Messages != nil {
		t.Fatal("messages returned without being asked for")
	}
}

func TestNativeBusyNeverSteersAndCancel(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()
	id := n.start(t)
	env.fake.Enqueue(fakemodel.Slow(50*time.Millisecond, time.Minute))

	// Two racing sends: exactly one starts the turn, the other is refused.
	type sent struct {
		text, turn string
		err        error
	}
	var wg sync.WaitGroup
	results := make([]sent, 2)
	gate := make(chan struct{})
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			text := fmt.Sprintf("racer %d", i)
			turn, err := n.Send(ctx, id, text)
			results[i] = sent{text, turn, err}
		}()
	}
	close(gate)
	wg.Wait()
	var winner sent
	busy := 0
	for _, r := range results {
		switch {
		case r.err == nil:
			winner = r
		case model.IsCode(r.err, model.CodeThreadBusy):
			busy++
		default:
			t.Fatalf("send: %v", r.err)
		}
	}
	if winner.turn == "" || busy != 1 {
		t.Fatalf("racing sends: %+v", results)
	}
	if _, err := env.fake.WaitRequests(ctx, 1); err != nil {
		t.Fatal(err)
	}
	n.waitEvent(t, "turn started", func(ev Event) bool { return ev.TurnID == winner.turn && ev.TurnStatus == model.TurnInProgress })
	if a := n.Active(); !slices.Equal(a, []model.ThreadID{id}) {
		t.Fatalf("active during the turn: %v", a)
	}
	_, err := n.Send(ctx, id, "would steer")
	wantCode(t, err, model.CodeThreadBusy)

	got, err := n.Cancel(ctx, id)
	if err != nil || got != winner.turn {
		t.Fatalf("cancel: %q %v, want %s", got, err, winner.turn)
	}
	end := n.waitEnd(t, id, winner.turn)
	if end.TurnStatus != model.TurnInterrupted || end.Status != model.ThreadIdle {
		t.Fatalf("after cancel: %+v", end)
	}
	if a := n.Active(); len(a) != 0 {
		t.Fatalf("active after cancel: %v", a)
	}
	_, err = n.Cancel(ctx, id)
	wantCode(t, err, model.CodeFailedPrecondition)

	// No steer reached the turn: it holds one user message and the model was asked once.
	res, err := n.client(t).TurnsList(ctx, appserver.TurnsListParams{ThreadID: string(id), Limit: 1, ItemsView: "full"})
	if err != nil || len(res.Data) != 1 || res.Data[0].ID != winner.turn {
		t.Fatalf("turns: %+v %v", res.Data, err)
	}
	var users []string
	for _, it := range res.Data[0].Items {
		if it.Type == "userMessage" {
			users = append(users, it.Content[0].Text)
		}
	}
	if !slices.Equal(users, []string{winner.text}) {
		t.Fatalf("user messages of the turn: %q, want only %q", users, winner.text)
	}
	if reqs := env.fake.Requests(); len(reqs) != 1 {
		t.Fatalf("the model got %d requests, want 1", len(reqs))
	}
	snap, err := n.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Info.Status != model.ThreadIdle || snap.Info.LastTurn.Status != model.TurnInterrupted || snap.Result.Status != model.TurnInterrupted {
		t.Fatalf("read after cancel: %+v result %+v", snap.Info, snap.Result)
	}
}

func TestNativeReadMessagesPages(t *testing.T) {
	t.Parallel()
	env := newNativeEnv(t)
	n := env.native(t)
	ctx := context.Background()
	id := n.start(t)
	var all []model.Message
	for i, q := range []string{"q1", "q2", "q3"} {
		turnID, end := n.run(t, id, q)
		if end.TurnStatus != model.TurnCompleted {
			t.Fatalf("turn %s: %+v", q, end)
		}
		all = append(all,
			model.Message{Role: model.RoleUser, Text: q, TurnID: turnID},
			model.Message{Role: model.RoleAssistant, Text: fmt.Sprintf("fake reply #%d to: %s", i+1, q), TurnID: turnID})
	}
	readAll := func(limit int) [][]model.Message {
		var pages [][]model.Message
		cursor := ""
		for range 20 {
			snap, err := n.Read(ctx, id, ReadRequest{Messages: true, Limit: limit, Cursor: cursor})
			if err != nil {
				t.Fatalf("limit %d: %v", limit, err)
			}
			pages = append(pages, snap.Messages)
			if cursor = snap.NextCursor; cursor == "" {
				return pages
			}
		}
		t.Fatalf("limit %d: paging does not end", limit)
		return nil
	}
	for limit := 1; limit <= 7; limit++ {
		pages := readAll(limit)
		var joined []model.Message
		for i := len(pages) - 1; i >= 0; i-- { // newest page first
			if len(pages[i]) > limit || (i < len(pages)-1 && len(pages[i]) != limit) {
				t.Fatalf("limit %d: page %d has %d messages", limit, i, len(pages[i]))
			}
			joined = append(joined, pages[i]...)
		}
		if len(joined) != len(all) {
			t.Fatalf("limit %d: %d messages, want %d: %+v", limit, len(joined), len(all), pages)
		}
		for i, m := range joined {
			if m.Role != all[i].Role || m.Text != all[i].Text || m.TurnID != all[i].TurnID || m.At.IsZero() {
				t.Fatalf("limit %d: message %d is %+v, want %+v", limit, i, m, all[i])
			}
		}
	}

	// A page boundary inside a turn survives a new turn arriving between pages.
	first, err := n.Read(ctx, id, ReadRequest{Messages: true, Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if texts := nativeTexts(first.Messages); !slices.Equal(texts, nativeTexts(all[3:])) {
		t.Fatalf("first page %q", texts)
	}
	n.run(t, id, "q4")
	second, err := n.Read(ctx, id, ReadRequest{Messages: true, Limit: 3, Cursor: first.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	if texts := nativeTexts(second.Messages); !slices.Equal(texts, nativeTexts(all[:3])) || second.NextCursor != "" {
		t.Fatalf("second page after a new turn: %q next %q", texts, second.NextCursor)
	}

	_, err = n.Read(ctx, id, ReadRequest{Messages: true, Cursor: "garbage"})
	wantCode(t, err, model.CodeInvalidArgument)
	other := n.start(t)
	n.run(t, other, "other thread")
	_, err = n.Read(ctx, other, ReadRequest{Messages: true, Cursor: first.NextCursor})
	wantCode(t, err, model.CodeInvalidArgument)
	_, err = n.Read(ctx, id, ReadRequest{Messages: true, Limit: model.MaxPageLimit + 1})
	wantCode(t, err, model.CodeInvalidArgument)
}

func nativeTexts(ms []model.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

// nativeObservation is what a read must leave unchanged.
type nativeObservation struct {
	rollout []byte
	status  string
	loaded  []string
}

func nativeObserve(t *testing.T, c *appserver.Client, id model.ThreadID) nativeObservation {
	t.Helper()
	ctx := context.Background()
	th, err := c.ThreadRead(ctx, string(id))
	if err != nil || th.Path == nil {
		t.Fatalf("thread/read: %+v %v", th, err)
	}
	b, err := os.ReadFile(*th.Path)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := c.ThreadLoadedList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(loaded.Data)
	return nativeObservation{rollout: b, status: th.Status.Type, loaded: loaded.Data}
}

func (o nativeObservation) same(p nativeObservation) bool {
	return string(o.rollout) == string(p.rollout) && o.status == p.status && slices.Equal(o.loaded, p.loaded)
}

func nativeReadEverything(t *testing.T, n *nativeUnder, id model.ThreadID) Snapshot {
	t.Helper()
	ctx := context.Background()
	snap, err := n.Read(ctx, id, ReadRequest{})
	if err != nil {
		t.Fatal(err)
	}
	cursor := ""
	for range 10 {
		page, err := n.Read(ctx, id, ReadRequest{Messages: true, Limit: 1, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return snap
}
