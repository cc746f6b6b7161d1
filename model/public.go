package model

import "encoding/json"

// The public CodexHost vocabulary of a delegation's or a turn's status. Scripts and agents
// that know the public CLI branch on these; the App Server's load states (ThreadIdle, …)
// describe something else, whether a native thread is loaded, and are reported as loadState.
const (
	StatusCreating    = "creating"    // the thread exists, its first turn has not started
	StatusRunning     = "running"     // a turn is in flight
	StatusCompleted   = "completed"   // the latest turn completed
	StatusFailed      = "failed"      // the latest turn failed, or the thread is in error
	StatusInterrupted = "interrupted" // the latest turn was interrupted (cancelled, or lost)
)

// PublicStatuses lists the public status vocabulary.
var PublicStatuses = []string{StatusCreating, StatusRunning, StatusCompleted, StatusFailed, StatusInterrupted}

// PublicTurnStatus maps a turn status (Turn*) to the public vocabulary; "" is a turn not
// yet started.
func PublicTurnStatus(turnStatus string) string {
	switch turnStatus {
	case TurnInProgress:
		return StatusRunning
	case TurnCompleted, TurnFailed, TurnInterrupted:
		return turnStatus
	}
	return StatusCreating
}

// PublicStatus is a thread's status in the public vocabulary: running while a turn is in
// flight (here, or in another Codex process), else what its latest turn came to.
func PublicStatus(info ThreadInfo) string {
	last := info.LastTurn
	switch {
	case info.Status == ThreadActive || (last != nil && last.Status == TurnInProgress):
		return StatusRunning
	case info.Status == ThreadSystemError && last == nil:
		return StatusFailed
	case last == nil:
		return StatusCreating
	}
	return PublicTurnStatus(last.Status)
}

// SetPublic fills the public CodexHost names of a thread view from codexhost's own fields.
func (info *ThreadInfo) SetPublic() {
	info.ThreadID, info.HarnessID, info.DeepLink = info.ID, info.Harness, info.Link
	info.RunStatus = PublicStatus(*info)
	if info.Configuration.Model == nil && info.Model != "" {
		m := info.Model
		info.Configuration.Model = &m
	}
}

// Result availabilities: whether the outcome of the thread's work can be read yet.
const (
	ResultPending     = "pending"     // a turn is still running, or none has finished
	ResultAvailable   = "available"   // the latest turn completed with a final message: text
	ResultUnavailable = "unavailable" // the latest turn ended without one: message says why
)

// SetAvailability says whether the result is the outcome of the thread's current work:
// pending while a turn runs (the fields still describe the previous finished turn).
func (r *Result) SetAvailability(running bool) {
	r.Message = ""
	switch {
	case running:
		r.Availability = ResultPending
	case r.Status == TurnCompleted && r.Text != "":
		r.Availability = ResultAvailable
	case r.Status == TurnCompleted:
		r.Availability, r.Message = ResultUnavailable, "the turn completed without a final message"
	case r.Status == TurnFailed && r.Error != "":
		r.Availability, r.Message = ResultUnavailable, "the turn failed: "+r.Error
	case r.Status == TurnFailed:
		r.Availability, r.Message = ResultUnavailable, "the turn failed"
	case r.Status == TurnInterrupted:
		r.Availability, r.Message = ResultUnavailable, "the turn was interrupted before it finished"
	default:
		r.Availability = ResultPending
	}
}

// PublicRoleAgent is the public name of the assistant role.
const PublicRoleAgent = "agent"

type messageJSON Message

// MarshalJSON writes the assistant role as the public "agent".
func (m Message) MarshalJSON() ([]byte, error) {
	w := messageJSON(m)
	if w.Role == RoleAssistant {
		w.Role = PublicRoleAgent
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads "agent" (and the older "assistant") as RoleAssistant.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w messageJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Role == PublicRoleAgent {
		w.Role = RoleAssistant
	}
	*m = Message(w)
	return nil
}
