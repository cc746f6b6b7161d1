package api

// EventThreadDelta carries a fragment of a running turn's assistant text as the model
// produces it. It is conversation content: the runtime sends it only to subscribers allowed
// to read that thread's text (eventcontent.go), never stores it, and the completed
// message (thread.progress, then thread.read) supersedes whatever was streamed.
const EventThreadDelta = "thread.delta"

// ThreadDelta is the fragment of a thread.delta event.
type ThreadDelta struct {
	// ItemID names the assistant message the fragment belongs to.
	ItemID string `json:"itemId"`
	// Text continues what the earlier fragments of the message said.
	Text string `json:"text"`
	// Seq numbers the message's fragments from 1: a reader that sees a gap (it subscribed
	// late) knows its text is partial until the message completes.
	Seq int `json:"seq"`
}

// DeltaEvent is the thread.delta event of one fragment of thread's turn.
func DeltaEvent(thread, status, turnID string, d ThreadDelta) Event {
	return Event{Type: EventThreadDelta, Thread: thread, Status: status, TurnID: turnID, Delta: &d}
}
