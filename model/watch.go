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
	// ResultNeedsApproval ends a watch on approval: an approval of the thread waits.
	ResultNeedsApproval = "needsApproval"
)

// What a watch notifies of (Watch.On): the thread's stop, or an approval of it that waits
// for an answer (runtime/approvals).
const (
	WatchOnStop     = "stop"
	WatchOnApproval = "approval"
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
	V      int      `json:"v" doc:"record version"`
	ID     string   `json:"id" doc:"the watch's id"`
	Thread ThreadID `json:"thread" doc:"the watched thread"`
	Notify string   `json:"notify" doc:"who is notified: a thread id, or client:NAME"` // a thread id, or client:NAME
	// State is one of the Watch* states; commands print pending and delivering both as
	// pendingDelivery (api.PublicWatchRecord).
	State        string    `json:"state" doc:"watching, pendingDelivery, delivered or undeliverable"`
	RegisteredAt time.Time `json:"registeredAt" doc:"when it was registered"`
	Deadline     time.Time `json:"deadline" doc:"the end of the observation window (absolute)"`
	// RunningTurn is the observed thread's turn in flight when last seen; its end is the stop.
	RunningTurn string    `json:"runningTurn,omitempty" doc:"the watched thread's turn in flight when last seen"`
	Result      string    `json:"result,omitempty" doc:"completed, failed, interrupted, timedOut, unreadable, notFound or needsApproval, once known"`
	SourceTurn  string    `json:"sourceTurn,omitempty" doc:"the turn whose end is the result"`
	DueAt       time.Time `json:"dueAt,omitzero" doc:"when the notification fell due"`
	Attempts    int       `json:"attempts,omitempty" doc:"delivery attempts so far"`
	NextAttempt time.Time `json:"nextAttempt,omitzero" doc:"when delivery is tried again"`
	DeliveredAt time.Time `json:"deliveredAt,omitzero" doc:"when it was delivered"`
	Reason      string    `json:"reason,omitempty" doc:"why it is undeliverable"`
	UpdatedAt   time.Time `json:"updatedAt" doc:"when the record last changed"`
	// MessageFile names a 0600 file in the engine's message folder whose text is delivered
	// instead of a stop notification (a marker report); the record itself holds no content.
	MessageFile string `json:"messageFile,omitempty" doc:"internal: a marker report delivered instead of a stop notification"`
	// On is WatchOnApproval for a watch that ends when an approval of the thread waits;
	// empty (a stop watch) otherwise, so records of older builds read the same.
	On string `json:"on,omitempty" doc:"approval for a watch on a request that needs approval; absent for a stop watch"`
	// Approval is the approval that ended a watch on approval.
	Approval string `json:"approval,omitempty" doc:"the approval that waits, for needsApproval"`
}

// ClientEvent is one entry of an external client's durable event log.
type ClientEvent struct {
	V      int      `json:"v" doc:"entry version"`
	Cursor string   `json:"cursor" doc:"this entry's cursor: pass it as --after to read what follows"`
	Type   string   `json:"type" doc:"watch.notification"` // "watch.notification"
	Watch  string   `json:"watch" doc:"the watch's id"`
	Thread ThreadID `json:"thread" doc:"the watched thread"`
	Link   string   `json:"link" doc:"its codex://threads/ link"`
	Result string   `json:"result" doc:"completed, failed, interrupted, timedOut, unreadable, notFound or needsApproval"`
	Turn   string   `json:"sourceTurn,omitempty" doc:"the turn whose end is the result"`
	// Approval is the approval that waits, for needsApproval.
	Approval string    `json:"approval,omitempty" doc:"the approval that waits, for needsApproval: answer it with codexhost approve"`
	Reason   string    `json:"reason,omitempty" doc:"why, for unreadable or notFound"`
	At       time.Time `json:"at" doc:"when the entry was written"`
	// Usage is the watched thread's token usage when the notification was delivered.
	Usage *Usage `json:"usage" doc:"the watched thread's token usage at delivery; null when none was reported"`
}
