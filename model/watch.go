package model

import "time"

// Watch states.
const (
	WatchWatching      = "watching"      // observing the thread until it stops or the deadline
	WatchPending       = "pending"       // outcome known, notification not yet delivered
	WatchDelivering    = "delivering"    // a delivery attempt is in flight (redone after a crash)
	WatchDelivered     = "delivered"     // the notification reached the recipient
	WatchUndeliverable = "undeliverable" // gave up; Reason says why
)

// Watch results.
const (
	ResultCompleted   = "completed"
	ResultFailed      = "failed"
	ResultInterrupted = "interrupted"
	ResultTimedOut    = "timedOut"
	ResultUnreadable  = "unreadable"
	ResultNotFound    = "notFound"
)

// Watch timing rules.
const (
	DefaultWatchTimeout = 30 * time.Minute
	MaxWatchTimeout     = 7 * 24 * time.Hour
	UnreadableAfter     = 60 * time.Second // reads must fail this long before `unreadable`
	RestartGrace        = 5 * time.Minute  // after a restart, failures count only after this (or a good read)
	DeliveryWindow      = 6 * time.Hour    // a pending notification is retried this long after it fell due
	UndeliverableKept   = 50               // the most recent undeliverable watches kept for `thread watches`
)

// ClientRecipientPrefix marks a client recipient: "client:NAME".
const ClientRecipientPrefix = "client:"

// Watch is a durable one-shot stop notification. It holds ids, states, results, times and
// reasons only: never conversation content, task text or credentials.
type Watch struct {
	V            int       `json:"v"`
	ID           string    `json:"id"`
	Thread       ThreadID  `json:"thread"`
	Notify       string    `json:"notify"` // a thread id, or client:NAME
	State        string    `json:"state"`
	RegisteredAt time.Time `json:"registeredAt"`
	Deadline     time.Time `json:"deadline"`
	// RunningTurn is the observed thread's turn in flight when last seen; its end is the stop.
	RunningTurn string    `json:"runningTurn,omitempty"`
	Result      string    `json:"result,omitempty"`
	SourceTurn  string    `json:"sourceTurn,omitempty"`
	DueAt       time.Time `json:"dueAt,omitzero"`
	Attempts    int       `json:"attempts,omitempty"`
	NextAttempt time.Time `json:"nextAttempt,omitzero"`
	DeliveredAt time.Time `json:"deliveredAt,omitzero"`
	Reason      string    `json:"reason,omitempty"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// MessageFile names a 0600 file in the engine's message folder whose text is delivered
	// instead of a stop notification (a marker report); the record itself holds no content.
	MessageFile string `json:"messageFile,omitempty"`
}

// ClientEvent is one entry of an external client's durable event log.
type ClientEvent struct {
	V      int       `json:"v"`
	Cursor string    `json:"cursor"`
	Type   string    `json:"type"` // "watch.notification"
	Watch  string    `json:"watch"`
	Thread ThreadID  `json:"thread"`
	Link   string    `json:"link"`
	Result string    `json:"result"`
	Turn   string    `json:"sourceTurn,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}
