package api

import (
	"encoding/json"
	"time"

	"github.com/codexhost/codexhost/internal/shquote"
	"github.com/codexhost/codexhost/model"
)

// The public CodexHost output shapes that sit beside codexhost's own fields, and the JSON
// rules they need: a read always has a result (pending until a turn finished), and the last
// page of a list or of messages has nextCursor null rather than no key.

// NextCommands are ready-to-run commands to follow a thread, spelled with the path of the
// CLI that printed them (the CLI fills them in: the runtime does not know that path).
type NextCommands struct {
	Read string `json:"read" doc:"prints the thread's current state and result"`
	Wait string `json:"wait" doc:"blocks until the thread stops (or 30 s), then prints the same"`
}

// TurnRef names a turn and its public status.
type TurnRef struct {
	TurnID string `json:"turnId" doc:"the turn's id"`
	Status string `json:"status" doc:"running, completed, failed or interrupted"`
}

// Public watch states of thread watches.
const (
	WatchStateWatching        = "watching"
	WatchStatePendingDelivery = "pendingDelivery"
	WatchStateUndeliverable   = "undeliverable"
)

// WatchEntry is one watch in the public shape of thread watches.
type WatchEntry struct {
	ThreadID       string `json:"threadId" doc:"the watched thread"`
	NotifyThreadID string `json:"notifyThreadId" doc:"who is notified: a thread id, or client:NAME"`
	State          string `json:"state" doc:"watching, pendingDelivery or undeliverable"`
	Outcome        string `json:"outcome,omitempty" doc:"completed, failed, interrupted, timedOut, unreadable, notFound or needsApproval, once known"`
	TurnID         string `json:"turnId,omitempty" doc:"the turn whose end is the outcome, when known"`
	On             string `json:"on,omitempty" doc:"approval for a watch on a request that needs approval; absent for a stop watch"`
	Approval       string `json:"approval,omitempty" doc:"the approval that waits, for needsApproval"`
	Reason         string `json:"reason,omitempty" doc:"why the watch is undeliverable"`
	RegisteredAt   string `json:"registeredAt" doc:"when it was registered (RFC 3339, as the watch record has it)"`
}

// PublicWatch projects a watch record to its public entry.
func PublicWatch(w model.Watch) WatchEntry {
	state := WatchStatePendingDelivery
	switch w.State {
	case model.WatchWatching:
		state = WatchStateWatching
	case model.WatchUndeliverable:
		state = WatchStateUndeliverable
	}
	return WatchEntry{ThreadID: string(w.Thread), NotifyThreadID: w.Notify, State: state, Outcome: w.Result,
		TurnID: w.SourceTurn, On: w.On, Approval: w.Approval, Reason: w.Reason, RegisteredAt: w.RegisteredAt.UTC().Format(time.RFC3339Nano)}
}

// NewNext builds the follow-up commands of a thread for the CLI at cliPath, quoted for a
// POSIX shell so that they run as printed; flags follow the thread (--operator).
func NewNext(cliPath, thread string, flags ...string) *NextCommands {
	command := func(verb string) string {
		return shquote.Join(append([]string{cliPath, "thread", verb, thread}, flags...)...)
	}
	return &NextCommands{Read: command("read"), Wait: command("wait")}
}

// threadReadJSON has ThreadReadResult's fields without its methods.
type threadReadJSON ThreadReadResult

// MarshalJSON writes result as {"availability":"pending"} while no turn has finished, and
// the messages view's nextCursor as null on its last page.
func (r ThreadReadResult) MarshalJSON() ([]byte, error) {
	w := threadReadJSON(r)
	if w.Result == nil {
		w.Result = &model.Result{Availability: model.ResultPending}
	}
	if r.Messages == nil {
		return json.Marshal(w)
	}
	return json.Marshal(struct {
		threadReadJSON
		NextCursor *string `json:"nextCursor"`
	}{w, nullable(r.NextCursor)})
}

// NullFields names the fields MarshalJSON may write as null (a schema of the type allows it).
func (ThreadReadResult) NullFields() []string { return []string{"nextCursor"} }

// UnmarshalJSON reads a pending result with nothing else in it back as no result.
func (r *ThreadReadResult) UnmarshalJSON(b []byte) error {
	var w threadReadJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Result != nil && *w.Result == (model.Result{Availability: model.ResultPending}) {
		w.Result = nil
	}
	*r = ThreadReadResult(w)
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type delegateStartJSON DelegateStartResult

// MarshalJSON writes turnId as null when no turn started, as the public CLI prints it.
func (r DelegateStartResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		delegateStartJSON
		TurnID *string `json:"turnId"`
	}{delegateStartJSON(r), nullable(r.TurnID)})
}

// NullFields names the fields MarshalJSON may write as null.
func (DelegateStartResult) NullFields() []string { return []string{"turnId"} }

type threadCancelJSON ThreadCancelResult

// MarshalJSON writes turnId as null when nothing was running.
func (r ThreadCancelResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		threadCancelJSON
		TurnID *string `json:"turnId"`
	}{threadCancelJSON(r), nullable(r.TurnID)})
}

// NullFields names the fields MarshalJSON may write as null.
func (ThreadCancelResult) NullFields() []string { return []string{"turnId"} }
