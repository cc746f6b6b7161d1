package harness

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// nativeTracked selects the notifications that carry thread and turn status.
func nativeTracked(method string) bool {
	switch method {
	case appserver.NoteThreadStatusChanged, appserver.NoteTurnStarted, appserver.NoteTurnCompleted, appserver.NoteThreadStarted, appserver.NoteThreadClosed, appserver.NoteItemStarted, appserver.NoteItemCompleted,
		appserver.NoteAgentMessageDelta, appserver.NoteTokenUsageUpdated:
		return true
	}
	return false
}

// nativeDrainIdle is how long the watcher keeps reading notifications after its process died:
// the reader published them all before reporting the death, but delivery is asynchronous.
const nativeDrainIdle = 50 * time.Millisecond

func (n *Native) watch(conn *nativeConn, notes <-chan appserver.Notification, stop func()) {
	defer close(conn.watched)
	done := conn.c.Done()
	for {
		select {
		case note, ok := <-notes:
			if !ok { // the client was closed
				n.retire(conn)
				return
			}
			n.apply(conn, note)
		case <-done:
			for drained := false; !drained; {
				select {
				case note, ok := <-notes:
					if !ok {
						drained = true
						break
					}
					n.apply(conn, note)
				case <-time.After(nativeDrainIdle):
					drained = true
				}
			}
			n.retire(conn)
			stop()
			_ = conn.c.Close()
			return
		}
	}
}

// retire forgets the threads of a dead process and reports them notLoaded; a running turn
// ends as interrupted, which is also how the next process will read it.
func (n *Native) retire(conn *nativeConn) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != conn {
		return
	}
	ids := make([]model.ThreadID, 0, len(n.threads))
	for id := range n.threads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		t := n.threads[id]
		n.endThreadStreamLocked(id)
		if t.turnID != "" {
			n.emitLocked(Event{Thread: id, Status: model.ThreadNotLoaded, TurnID: t.turnID, TurnStatus: model.TurnInterrupted})
		} else {
			n.emitLocked(Event{Thread: id, Status: model.ThreadNotLoaded})
		}
	}
	n.threads = map[model.ThreadID]*nativeThread{}
	n.stream.items = nil
	n.conn = nil
}

// apply updates the live state from one notification of conn's process.
func (n *Native) apply(conn *nativeConn, note appserver.Notification) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != conn {
		return
	}
	switch note.Method {
	case appserver.NoteThreadStatusChanged:
		var ev appserver.ThreadStatusChanged
		if json.Unmarshal(note.Params, &ev) != nil || ev.ThreadID == "" {
			return
		}
		n.applyStatus(model.ThreadID(ev.ThreadID), ev.Status)
	case appserver.NoteTurnStarted:
		var ev appserver.TurnEvent
		if json.Unmarshal(note.Params, &ev) != nil || ev.ThreadID == "" {
			return
		}
		n.turnStartedLocked(model.ThreadID(ev.ThreadID), ev.Turn.ID)
	case appserver.NoteTurnCompleted:
		var ev appserver.TurnEvent
		if json.Unmarshal(note.Params, &ev) != nil || ev.ThreadID == "" {
			return
		}
		n.turnEndedLocked(model.ThreadID(ev.ThreadID), ev.Turn)
	case appserver.NoteThreadStarted:
		var ev struct {
			Thread appserver.Thread `json:"thread"`
		}
		if json.Unmarshal(note.Params, &ev) != nil || ev.Thread.ID == "" {
			return
		}
		id := model.ThreadID(ev.Thread.ID)
		if n.threads[id] == nil {
			n.threads[id] = &nativeThread{status: nativeStatus(ev.Thread.Status.Type)}
		}
	case appserver.NoteItemStarted:
		n.itemStartedLocked(note.Params)
	case appserver.NoteItemCompleted:
		var ev appserver.ItemEvent
		if json.Unmarshal(note.Params, &ev) != nil || ev.ThreadID == "" {
			return
		}
		if ev.Item.Type != "userMessage" && ev.Item.Type != "agentMessage" {
			return
		}
		id := model.ThreadID(ev.ThreadID)
		n.endStreamLocked(id, ev.Item.ID)
		if t := n.threads[id]; t != nil && t.turnID != "" {
			n.emitLocked(Event{Thread: id, Status: t.status, TurnID: t.turnID, Progress: true})
		}
	case appserver.NoteAgentMessageDelta:
		n.deltaLocked(conn, note.Params)
	case appserver.NoteTokenUsageUpdated:
		n.usageLocked(note.Params)
	case appserver.NoteThreadClosed:
		var ev appserver.ThreadIDEvent
		if json.Unmarshal(note.Params, &ev) == nil && ev.ThreadID != "" {
			n.unloadLocked(model.ThreadID(ev.ThreadID))
		}
	}
}

func (n *Native) entryLocked(id model.ThreadID) *nativeThread {
	t := n.threads[id]
	if t == nil {
		t = &nativeThread{status: model.ThreadIdle}
		n.threads[id] = t
	}
	return t
}

func (n *Native) applyStatus(id model.ThreadID, st appserver.ThreadStatus) {
	s := nativeStatus(st.Type)
	if s == model.ThreadNotLoaded {
		n.unloadLocked(id)
		return
	}
	t := n.entryLocked(id)
	switch s {
	case model.ThreadActive:
		changed := t.status != s || t.waiting != st.WaitingOnApproval()
		t.status, t.waiting, t.pending = s, st.WaitingOnApproval(), ""
		// Without a turn id the change is reported by turn/started, which follows.
		if changed && t.turnID != "" {
			n.emitLocked(Event{Thread: id, Status: s, TurnID: t.turnID})
		}
	default:
		t.waiting = false
		if t.turnID != "" {
			t.pending = s // idle arrives before turn/completed; report both together
			return
		}
		if t.status != s {
			t.status = s
			n.emitLocked(Event{Thread: id, Status: s})
		}
	}
}

func (n *Native) unloadLocked(id model.ThreadID) {
	t := n.threads[id]
	if t == nil {
		return
	}
	n.endThreadStreamLocked(id)
	delete(n.threads, id)
	if t.turnID != "" {
		n.emitLocked(Event{Thread: id, Status: model.ThreadNotLoaded, TurnID: t.turnID, TurnStatus: model.TurnInterrupted})
		return
	}
	n.emitLocked(Event{Thread: id, Status: model.ThreadNotLoaded})
}

// turnStartedLocked records a running turn, from turn/started or from the turn/start
// response, whichever comes first; the other one is then a no-op.
func (n *Native) turnStartedLocked(id model.ThreadID, turnID string) {
	if turnID == "" {
		return
	}
	t := n.entryLocked(id)
	if t.turnID == turnID || t.lastEnded == turnID {
		return
	}
	t.turnID, t.status, t.pending, t.progress = turnID, model.ThreadActive, "", model.TurnProgress{}
	n.emitLocked(Event{Thread: id, Status: model.ThreadActive, TurnID: turnID, TurnStatus: model.TurnInProgress})
}

func (n *Native) turnEndedLocked(id model.ThreadID, turn appserver.Turn) {
	t := n.entryLocked(id)
	if turn.ID == "" || turn.ID == t.lastEnded {
		return
	}
	if t.turnID != "" && t.turnID != turn.ID {
		// Not the turn we follow (cannot happen with ordered notifications); report its end
		// without touching the state of the one we follow.
		n.emitLocked(Event{Thread: id, Status: t.status, TurnID: turn.ID, TurnStatus: turn.Status})
		return
	}
	status := t.pending
	if status == "" {
		status = model.ThreadIdle
		if turn.Status == appserver.TurnFailed {
			status = model.ThreadSystemError
		}
	}
	n.endThreadStreamLocked(id)
	t.turnID, t.lastEnded, t.status, t.pending, t.waiting = "", turn.ID, status, "", false
	n.emitLocked(Event{Thread: id, Status: status, TurnID: turn.ID, TurnStatus: turn.Status})
}

// nativeStatus reads a status the harness does not know as idle: the App Server reported the
// thread, and a thread it does not run is idle there.
func nativeStatus(appStatus string) string {
	s, _ := appserver.ModelStatus(appStatus, model.ThreadIdle)
	return s
}

func (n *Native) emitLocked(e Event) {
	if n.opts.OnEvent == nil || n.closed {
		return
	}
	e.At = n.opts.Now()
	n.events = append(n.events, e)
	if !n.dispatching {
		n.dispatching = true
		go n.dispatch()
	}
}

func (n *Native) dispatch() {
	for {
		n.mu.Lock()
		if len(n.events) == 0 {
			n.dispatching = false
			n.mu.Unlock()
			return
		}
		e := n.events[0]
		n.events[0] = Event{}
		n.events = n.events[1:]
		n.mu.Unlock()
		n.opts.OnEvent(e)
	}
}
