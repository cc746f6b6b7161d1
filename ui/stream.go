package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Streaming of a running turn. thread.delta events carry the assistant's text as the model
// writes it; the transcript pane appends it below the loaded messages without reading the
// thread again, redrawing only the streamed lines. The text is drawn plain (markdown is
// rendered in a command once the message completes). A streamed message gives way to the
// message as read: when a read holds its item, or shows its turn ended, so nothing is drawn
// twice and nothing goes missing in between.

// liveStream is what the shown thread streamed that no read holds yet.
type liveStream struct {
	thread string
	items  []*liveItem // in arrival order
	// at is where the streamed lines start in the pane's cached body, after the lines of the
	// loaded messages, which end with turn after; -1 when the body is not drawn.
	at    int
	after string
}

// liveItem is one streamed assistant message.
type liveItem struct {
	turn, id string
	text     strings.Builder
	seq      int
	partial  bool // its start (or a piece) was missed: the text shows a gap
}

func (s *liveStream) item(turn, id string) *liveItem {
	for _, it := range s.items {
		if it.id == id {
			return it
		}
	}
	it := &liveItem{turn: turn, id: id}
	s.items = append(s.items, it)
	return it
}

// add appends one fragment; a repeated one is dropped, a gap marks the text partial.
func (s *liveStream) add(thread, turn string, d api.ThreadDelta) bool {
	if s.thread != thread {
		*s = liveStream{thread: thread, at: -1}
	}
	it := s.item(turn, d.ItemID)
	if d.Seq != 0 && d.Seq <= it.seq {
		return false
	}
	if d.Seq != it.seq+1 {
		it.partial = true
	}
	it.seq = d.Seq
	it.text.WriteString(d.Text)
	return true
}

// onDelta appends a fragment of the shown thread's running turn.
func (t *transcriptPane) onDelta(ev api.Event) tea.Cmd {
	if !t.has || ev.Thread != t.ref.ID || ev.Delta == nil || ev.Delta.ItemID == "" {
		return nil
	}
	if ev.Status != "" {
		t.ref.Status = ev.Status
	}
	if !t.live.add(ev.Thread, ev.TurnID, *ev.Delta) {
		return nil
	}
	t.restream()
	if t.follow {
		t.settle()
	}
	return nil
}

// restream redraws the streamed lines at the end of the cached body, leaving the rest.
func (t *transcriptPane) restream() {
	s := &t.live
	if t.lines == nil || t.linesIDs != t.c.ids.version || s.at < 0 || s.at > len(t.lines) {
		t.lines = nil
		return
	}
	t.lines = t.appendStream(t.lines[:s.at], s.after)
	t.search.in = nil // the lines changed in place: a search must look at them again
}

// appendStream adds the streamed messages of the shown thread after the body's lines, which
// end with turn after; it records where they start so that restream can replace them.
func (t *transcriptPane) appendStream(lines []string, after string) []string {
	s := &t.live
	s.at, s.after = len(lines), after
	if s.thread != t.ref.ID || len(s.items) == 0 {
		return lines
	}
	st := t.c.st
	w := max(t.w, 1)
	turn := after
	for _, it := range s.items {
		if it.turn != turn && it.turn != "" {
			turn = it.turn
			if !t.turnShownAlone(turn) {
				lines = append(lines, st.Muted.Render(rule("turn "+t.c.ids.short(turn)+" · "+turnWords(model.TurnInProgress), w)))
			}
		}
		lines = append(lines, st.Assistant.Render("◆ "+roleName(model.RoleAssistant))+st.Muted.Render(" · streaming"))
		text := clean(it.text.String())
		if it.partial {
			text = "…" + text
		}
		for _, l := range wrap(text, w-2) {
			lines = append(lines, "  "+l)
		}
		lines = append(lines, "")
	}
	return lines
}

// turnShownAlone reports the running turn's rule drawn already by lastTurnAlone.
func (t *transcriptPane) turnShownAlone(turn string) bool {
	lt := t.lastTurn
	return lt != nil && lt.ID == turn && lt.Status != model.TurnCompleted
}

// supersedeStream drops the streamed messages that a read now holds: its item is among the
// loaded messages (or, where a read gives no item ids, the same text in that turn), or the
// read shows their turn ended, when every message of it is in the read.
func (t *transcriptPane) supersedeStream(msg transcriptLoadedMsg) {
	s := &t.live
	if s.thread != t.ref.ID || len(s.items) == 0 || msg.older {
		return
	}
	have := map[string]bool{}
	ended := map[string]bool{}
	for _, e := range t.entries {
		if e.item != "" {
			have[e.item] = true
		} else if e.role == model.RoleAssistant {
			have[e.turn+"\x00"+e.text] = true
		}
		if e.turnStatus != "" && e.turnStatus != model.TurnInProgress {
			ended[e.turn] = true
		}
	}
	if msg.info != nil && msg.info.LastTurn != nil && msg.info.LastTurn.Status != model.TurnInProgress {
		ended[msg.info.LastTurn.ID] = true
	}
	kept := s.items[:0]
	for _, it := range s.items {
		if have[it.id] || have[it.turn+"\x00"+clean(it.text.String())] || ended[it.turn] {
			continue
		}
		kept = append(kept, it)
	}
	clear(s.items[len(kept):])
	s.items = kept
}
