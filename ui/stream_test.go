package ui

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

const idLive = "01a23300-0000-7000-8000-00000000live"

// liveThread is a native thread whose turn runs: reads give what has completed so far.
type liveThread struct {
	mu       sync.Mutex
	messages []model.Message
	last     model.TurnSummary
}

func (l *liveThread) serve(rt *fakeRuntime) {
	rt.on(api.MethodThreadRead, func(json.RawMessage) (any, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		status := model.ThreadActive
		if l.last.Status != model.TurnInProgress {
			status = model.ThreadIdle
		}
		last := l.last
		return api.ThreadReadResult{Thread: model.ThreadInfo{ID: idLive, Harness: model.NativeHarness, Status: status, LastTurn: &last},
			Messages: append([]model.Message(nil), l.messages...)}, nil
	})
}

func (l *liveThread) set(status string, msgs ...model.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last.Status, l.messages = status, append(l.messages, msgs...)
}

func newLiveApp(t *testing.T, w, h int) (*testApp, *liveThread) {
	rt := newFake()
	fleetFixture(rt)
	started := epoch.Add(-5 * time.Second)
	live := &liveThread{last: model.TurnSummary{ID: "turn-live", Status: model.TurnInProgress, StartedAt: &started}}
	live.messages = []model.Message{{ID: "user_1", Role: model.RoleUser, Text: "write a poem", TurnID: "turn-live", At: started}}
	live.serve(rt)
	a := newTestApp(t, rt, w, h)
	a.run(a.transcript.Show(threadRef{ID: idLive, Status: model.ThreadActive}))
	return a, live
}

func delta(item, text string, seq int) tea.Msg {
	return EventMsg(api.DeltaEvent(idLive, model.ThreadActive, "turn-live", api.ThreadDelta{ItemID: item, Text: text, Seq: seq}))
}

// The pane shows a running turn's text as it streams, without reading the thread per
// fragment; once the message completes, the message as read replaces the streamed text, which
// then shows once.
func TestTranscriptAppendsStreamedTextAndTheCompletedMessageReplacesIt(t *testing.T) {
	t.Parallel()
	a, live := newLiveApp(t, 100, 30)
	tr := a.transcript
	reads := len(callsTo[api.ThreadReadParams](a.rt, api.MethodThreadRead))
	mustContain(t, tr.View(), "write a poem", "running 5s")

	a.send(delta("msg_1", "Roses are ", 1))
	v := tr.View()
	mustContain(t, v, "◆ assistant · streaming", "Roses are")
	a.send(delta("msg_1", "red, violets", 2))
	a.send(delta("msg_1", "red, violets", 2)) // a repeat is dropped
	v = tr.View()
	mustContain(t, v, "Roses are red, violets")
	if n := strings.Count(v, "violets"); n != 1 {
		t.Fatalf("the streamed text shows %d times:\n%s", n, v)
	}
	if got := len(callsTo[api.ThreadReadParams](a.rt, api.MethodThreadRead)); got != reads {
		t.Fatalf("fragments read the thread again: %d reads, want %d", got, reads)
	}

	// A read that does not hold the message yet (another message completed) keeps the stream.
	a.send(EventMsg(api.Event{Type: api.EventThreadProgress, Thread: idLive, Status: model.ThreadActive, TurnID: "turn-live"}))
	mustContain(t, tr.View(), "Roses are red, violets", "streaming")

	a.send(delta("msg_1", " blue.", 3))
	live.set(model.TurnInProgress, model.Message{ID: "msg_1", Role: model.RoleAssistant, Text: "Roses are red, violets blue.", TurnID: "turn-live", At: epoch})
	a.send(EventMsg(api.Event{Type: api.EventThreadProgress, Thread: idLive, Status: model.ThreadActive, TurnID: "turn-live"}))
	v = tr.View()
	mustContain(t, v, "Roses are red, violets blue.")
	mustNotContain(t, v, "streaming")
	if n := strings.Count(v, "violets"); n != 1 {
		t.Fatalf("after completion the text shows %d times:\n%s", n, v)
	}
}

// A stream joined after its start says so; the turn's end drops whatever was streamed, since
// the read then holds every message of it.
func TestTranscriptStreamJoinedLateShowsTheGapUntilTheTurnEnds(t *testing.T) {
	t.Parallel()
	a, live := newLiveApp(t, 100, 30)
	tr := a.transcript
	a.send(delta("msg_2", "middle of it", 4))
	mustContain(t, tr.View(), "…middle of it")
	// Another thread's fragments never show here.
	a.send(EventMsg(api.DeltaEvent(idA, model.ThreadActive, "x", api.ThreadDelta{ItemID: "m", Text: "elsewhere", Seq: 1})))
	mustNotContain(t, tr.View(), "elsewhere")

	live.set(model.TurnCompleted, model.Message{Role: model.RoleAssistant, Text: "the whole answer, middle of it and end", TurnID: "turn-live", At: epoch})
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idLive, Status: model.ThreadIdle, TurnID: "turn-live", TurnStatus: model.TurnCompleted}))
	v := tr.View()
	mustContain(t, v, "the whole answer")
	mustNotContain(t, v, "…middle", "streaming")
}

// Streamed lines go at the end, after the running turn's messages, and only those are drawn
// again per fragment: the cached lines before them stay.
func TestTranscriptRedrawsOnlyTheStreamedLines(t *testing.T) {
	t.Parallel()
	a, _ := newLiveApp(t, 120, 35)
	tr := a.transcript
	a.send(delta("msg_1", strings.Repeat("word ", 30), 1))
	_ = tr.body()
	a.send(delta("msg_1", " more words at the end", 2))
	if tr.lines == nil {
		t.Fatal("a fragment dropped the cached body, which is then built again whole")
	}
	after := tr.body()
	if !strings.Contains(after[len(after)-2], "at the end") {
		t.Fatalf("last streamed line %q", after[len(after)-2])
	}
}

// The status bar counts running turns from the events as they come, not at the next layout
// of the fleet: a turn that started shows at once, one that ended leaves at once.
func TestStatusBarCountsRunningTurnsFromEvents(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	mustContain(t, a.View(), "1 turn running") // idB, waiting on approval
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idA, Status: model.ThreadActive, TurnID: "t9", TurnStatus: model.TurnInProgress}))
	mustContain(t, a.View(), "2 turns running")
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idA, Status: model.ThreadIdle, TurnID: "t9", TurnStatus: model.TurnCompleted}))
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idB, Status: model.ThreadIdle, TurnID: "t8", TurnStatus: model.TurnCompleted}))
	mustNotContain(t, a.View(), "turn running", "turns running")
}

// A search in the transcript finds text that streamed in after it started, though the
// streamed lines change in place.
func TestTranscriptSearchSeesStreamedText(t *testing.T) {
	t.Parallel()
	a, _ := newLiveApp(t, 120, 35)
	tr := a.transcript
	a.send(delta("msg_1", "Roses are ", 1))
	tr.search.query = "violets"
	tr.search.sync(tr.body())
	if len(tr.search.matches) != 0 {
		t.Fatalf("matches before the text came: %+v", tr.search.matches)
	}
	a.send(delta("msg_1", "red, violets", 2))
	tr.search.sync(tr.body())
	if len(tr.search.matches) != 1 {
		t.Fatalf("%d matches of streamed text, want 1", len(tr.search.matches))
	}
}
