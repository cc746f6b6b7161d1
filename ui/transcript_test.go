package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func TestTranscriptShowsNewestPageAndTellsUserFromAssistant(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Select) // the first row, idA
	v := a.transcript.View()
	mustContain(t, v, "▌ you", "▌ why do the tests flake?", "◆ assistant", "turn turn-2 · completed", "● live")
	// Markdown: the list items get bullets (without colour, emphasis keeps its markers).
	mustContain(t, v, "• a **race** in the cache")
	mustNotContain(t, v, "- a **race**")
	if a.focus != paneTranscript {
		t.Fatalf("enter did not focus the transcript")
	}
	golden.RequireEqual(t, []byte(v))
}

func TestTranscriptLoadsOlderPagesWhenScrollingUpAndLeavesFollow(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Select)
	tr := a.transcript
	a.press(a.km.Transcript.Top)
	mustContain(t, tr.View(), "↑ older messages")
	for range 40 {
		a.press(a.km.Transcript.Up)
	}
	reqs := callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript)
	if len(reqs) != 2 || reqs[1].Cursor != "older-1" || reqs[1].Host != "gateway:local" {
		t.Fatalf("transcript requests: %+v", reqs)
	}
	if tr.follow {
		t.Fatal("scrolling up did not leave follow mode")
	}
	a.press(a.km.Transcript.Top)
	mustContain(t, tr.View(), "first question from long ago", "paused")
	if tr.entries[0].text != "first question from long ago" || len(tr.entries) != 6 {
		t.Fatalf("entries after paging: %d, first %q", len(tr.entries), tr.entries[0].text)
	}
	a.press(a.km.Transcript.Follow)
	v := tr.View()
	mustContain(t, v, "● live", "the cache now takes a lock")
}

func TestTranscriptOfAnExternalThreadReadsMessages(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Bottom)
	a.press(a.km.List.Select)
	reads := callsTo[api.ThreadReadParams](rt, api.MethodThreadRead)
	if len(reads) == 0 || reads[len(reads)-1].View != model.ViewMessages || reads[len(reads)-1].Thread != idShell {
		t.Fatalf("thread.read calls: %+v", reads)
	}
	mustContain(t, a.transcript.View(), "count the files", "There are **3** files.")
}

func TestTranscriptDropsTheReplyOfAnEarlierSelection(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	tr := a.transcript
	slow := tr.Show(threadRef{ID: idB, Host: "gateway:local"})
	fast := tr.Show(threadRef{ID: idShell})
	a.send(fast())
	a.send(slow()) // arrives last, for a thread no longer shown
	v := tr.View()
	mustContain(t, v, "count the files")
	mustNotContain(t, v, "why do the tests flake?")
}

func TestTranscriptFollowsLiveThreadOnEvents(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	a := newTestApp(t, rt, 130, 34)
	a.press(a.km.List.Select)
	n := len(callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript))
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idA, Status: model.ThreadActive, TurnStatus: model.TurnInProgress}))
	if m := len(callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript)); m != n+1 {
		t.Fatalf("event did not refresh the transcript: %d -> %d", n, m)
	}
	mustContain(t, a.transcript.View(), "● running", "● live")
	// Another thread's event leaves it alone.
	a.send(EventMsg(api.Event{Type: api.EventThreadStatus, Thread: idB, Status: model.ThreadIdle}))
	if m := len(callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript)); m != n+1 {
		t.Fatalf("another thread's event refreshed the transcript")
	}
	// A message completing inside the running turn refreshes it too: that is the live follow.
	a.send(EventMsg(api.Event{Type: api.EventThreadProgress, Thread: idA, Status: model.ThreadActive}))
	if m := len(callsTo[api.CatalogTranscriptParams](rt, api.MethodCatalogTranscript)); m != n+2 {
		t.Fatalf("a progress event did not refresh the transcript: %d -> %d", n, m)
	}
}

func TestMergeNewestKeepsOlderPagesAndNeverLeavesAGap(t *testing.T) {
	t.Parallel()
	e := func(keys ...string) []tEntry {
		var out []tEntry
		for _, k := range keys {
			out = append(out, tEntry{key: k})
		}
		return out
	}
	keys := func(es []tEntry) string {
		var s []string
		for _, x := range es {
			s = append(s, x.key)
		}
		return strings.Join(s, ",")
	}
	got, older := mergeNewest(e("1", "2", "3", "4"), "c-old", e("3", "4", "5"), "c-new", true)
	if keys(got) != "1,2,3,4,5" || older != "c-old" {
		t.Fatalf("overlap: %s %s", keys(got), older)
	}
	got, older = mergeNewest(e("1", "2"), "c-old", e("7", "8"), "c-new", true)
	if keys(got) != "7,8" || older != "c-new" {
		t.Fatalf("gap: %s %s", keys(got), older)
	}
}

func TestTranscriptNeverDrawsEscapeSequencesFromMessages(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	rt.on(api.MethodThreadRead, func(json.RawMessage) (any, error) {
		return api.ThreadReadResult{Thread: model.ThreadInfo{ID: idShell, Harness: "shell", Status: model.ThreadIdle},
			Messages: []model.Message{{Role: model.RoleUser, Text: "evil \x1b[2J\x1b]0;title\x07 text\tend"}}}, nil
	})
	a := newTestApp(t, rt, 130, 34, func(o *Options) { o.Plain = true })
	a.send(threadSelectedMsg{ref: threadRef{ID: idShell}})
	v := a.transcript.View()
	if strings.ContainsRune(v, 0x1b) || strings.ContainsRune(v, 0x07) {
		t.Fatalf("control characters reached the screen: %q", v)
	}
	// The sequences show as marks, as every command's output shows them.
	mustContain(t, v, "evil <U+001B>[2J<U+001B>]0;title<U+0007> text    end")
}

// A codex thread of this runtime that no catalog lists (a continued session's supervised
// thread) is read through thread.read, and so are its older pages.
func TestTranscriptFallsBackToThreadReadForThreadsNoCatalogLists(t *testing.T) {
	t.Parallel()
	rt := newFake()
	fleetFixture(rt)
	const idSup = "01a22b00-0000-7000-8000-00000000c0de"
	rt.on(api.MethodCatalogTranscript, func(raw json.RawMessage) (any, error) {
		return nil, model.Errorf(model.CodeThreadNotFound, "", "not in the catalog")
	})
	rt.on(api.MethodThreadRead, func(raw json.RawMessage) (any, error) {
		var p api.ThreadReadParams
		_ = json.Unmarshal(raw, &p)
		if p.Thread != idSup {
			return nil, model.Errorf(model.CodeThreadNotFound, "", "no thread %s", p.Thread)
		}
		return api.ThreadReadResult{Thread: model.ThreadInfo{ID: idSup, Harness: model.NativeHarness, Status: model.ThreadIdle},
			Messages:   []model.Message{{Role: model.RoleUser, Text: "carried over question"}, {Role: model.RoleAssistant, Text: "carried over answer"}},
			NextCursor: "msg-older"}, nil
	})
	a := newTestApp(t, rt, 130, 34)
	a.send(a.transcript.Show(threadRef{ID: idSup, Host: "gateway:local"})())
	mustContain(t, a.transcript.View(), "carried over question", "carried over answer")
	if a.transcript.ref.catalog() {
		t.Fatal("the pane still reads the thread through the catalog")
	}
	a.send(a.transcript.load("msg-older")())
	reads := callsTo[api.ThreadReadParams](rt, api.MethodThreadRead)
	if last := reads[len(reads)-1]; last.Cursor != "msg-older" || last.Thread != idSup {
		t.Fatalf("older page not read through thread.read: %+v", reads)
	}
}
