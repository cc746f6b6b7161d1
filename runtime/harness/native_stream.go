package harness

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// Streaming of a running turn's assistant text. The App Server sends every model fragment of
// an agent message as it arrives; the harness passes them on as Delta events, coalesced per
// message so that a fast model does not flood subscribers: an item's first fragment goes out
// at once, later ones at most once per DeltaWindow. The message's completion (a Progress
// event, and the transcript) stays the authority; a fragment still buffered goes out before
// it, so a reader that joins the fragments sees the whole text.

// DeltaWindow is the least time between two delta events of one message.
const DeltaWindow = 50 * time.Millisecond

// Delta is a fragment of an assistant message of the running turn.
type Delta struct {
	ItemID string
	Text   string
	// Seq numbers the message's delta events from 1, so a reader can tell that it missed
	// the start (it subscribed late) or a piece.
	Seq int
}

type streamKey struct {
	thread model.ThreadID
	item   string
}

type streamItem struct {
	turn    string
	pending strings.Builder
	seq     int
	last    time.Time // when the item's previous event went out
	armed   bool      // a flush is scheduled
}

// streamBuffer coalesces fragments per message. It holds no lock of its own: the harness
// calls it under its mutex.
type streamBuffer struct {
	window time.Duration
	items  map[streamKey]*streamItem
}

// add takes one fragment at now. It returns the delta to send now when the window since the
// item's last event has passed; otherwise the fragment waits, and wait says when to flush it
// (zero when a flush is already scheduled).
func (b *streamBuffer) add(k streamKey, turn, text string, now time.Time) (d *Delta, wait time.Duration) {
	if b.items == nil {
		b.items = map[streamKey]*streamItem{}
	}
	it := b.items[k]
	if it == nil {
		it = &streamItem{turn: turn}
		b.items[k] = it
	}
	it.pending.WriteString(text)
	if it.armed {
		return nil, 0
	}
	if it.seq == 0 || now.Sub(it.last) >= b.window {
		return b.take(k, it, now), 0
	}
	it.armed = true
	return nil, b.window - now.Sub(it.last)
}

// flush returns what waits of one item, nil when nothing does.
func (b *streamBuffer) flush(k streamKey, now time.Time) *Delta {
	it := b.items[k]
	if it == nil {
		return nil
	}
	it.armed = false
	if it.pending.Len() == 0 {
		return nil
	}
	return b.take(k, it, now)
}

func (b *streamBuffer) take(k streamKey, it *streamItem, now time.Time) *Delta {
	it.seq++
	it.last = now
	d := &Delta{ItemID: k.item, Text: it.pending.String(), Seq: it.seq}
	it.pending.Reset()
	return d
}

// turnOf is the turn an item streams in.
func (b *streamBuffer) turnOf(k streamKey) string {
	if it := b.items[k]; it != nil {
		return it.turn
	}
	return ""
}

// end forgets a message that completed, returning what still waited of it.
func (b *streamBuffer) end(k streamKey, now time.Time) *Delta {
	d := b.flush(k, now)
	delete(b.items, k)
	return d
}

// endThread forgets every message of a thread (its turn ended or it unloaded), returning
// what still waited, in item order.
func (b *streamBuffer) endThread(id model.ThreadID, now time.Time) []streamFlush {
	var keys []streamKey
	for k := range b.items {
		if k.thread == id {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b streamKey) int { return strings.Compare(a.item, b.item) })
	var out []streamFlush
	for _, k := range keys {
		turn := b.items[k].turn
		if d := b.end(k, now); d != nil {
			out = append(out, streamFlush{key: k, turn: turn, delta: d})
		}
	}
	return out
}

type streamFlush struct {
	key   streamKey
	turn  string
	delta *Delta
}

// deltaLocked takes one agent message delta notification of conn's process.
func (n *Native) deltaLocked(conn *nativeConn, params json.RawMessage) {
	var ev appserver.AgentMessageDelta
	if json.Unmarshal(params, &ev) != nil || ev.ThreadID == "" || ev.ItemID == "" || ev.Delta == "" {
		return
	}
	k := streamKey{thread: model.ThreadID(ev.ThreadID), item: ev.ItemID}
	d, wait := n.stream.add(k, ev.TurnID, ev.Delta, n.opts.Now())
	if d != nil {
		n.emitDeltaLocked(k.thread, ev.TurnID, d)
	}
	if wait > 0 {
		time.AfterFunc(wait, func() { n.flushStream(conn, k) })
	}
}

// flushStream sends what waited of an item once its window passed.
func (n *Native) flushStream(conn *nativeConn, k streamKey) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.conn != conn {
		return
	}
	if d := n.stream.flush(k, n.opts.Now()); d != nil {
		n.emitDeltaLocked(k.thread, n.stream.turnOf(k), d)
	}
}

// endStreamLocked sends what waited of a message that just completed, before its Progress.
func (n *Native) endStreamLocked(id model.ThreadID, item string) {
	k := streamKey{thread: id, item: item}
	turn := n.stream.turnOf(k)
	if d := n.stream.end(k, n.opts.Now()); d != nil {
		n.emitDeltaLocked(id, turn, d)
	}
}

// endThreadStreamLocked sends what waited of a thread's messages, before its turn's end.
func (n *Native) endThreadStreamLocked(id model.ThreadID) {
	for _, f := range n.stream.endThread(id, n.opts.Now()) {
		n.emitDeltaLocked(id, f.turn, f.delta)
	}
}

func (n *Native) emitDeltaLocked(id model.ThreadID, turn string, d *Delta) {
	status := model.ThreadActive
	if t := n.threads[id]; t != nil && t.status != "" {
		status = t.status
	}
	n.emitLocked(Event{Thread: id, Status: status, TurnID: turn, Delta: d})
}
