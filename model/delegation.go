package model

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
	"unicode"
)

// Delegation statuses follow the child thread's life.
const (
	DelegationStarting  = "starting"
	DelegationRunning   = "running"
	DelegationCompleted = "completed"
	DelegationFailed    = "failed"
	DelegationCancelled = "interrupted"
)

// Delegation is the record of one thread delegating to another. It never holds task text or
// conversation content. Version 1 is the shape an older build knows; newer fields must be
// optional so that build keeps reading it.
type Delegation struct {
	V             int       `json:"v"`
	ID            string    `json:"id"`
	ParentThread  ThreadID  `json:"parentThread"`
	ChildThread   ThreadID  `json:"childThread"`
	ParentHarness string    `json:"parentHarness"`
	TargetHarness string    `json:"targetHarness"`
	Status        string    `json:"status"`
	RequestID     string    `json:"requestId,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// Origin kinds: who made a thread.
const (
	OriginThread = "thread" // delegated by a parent thread (see the Delegation)
	OriginClient = "client" // started by a named external client
)

// Origin says who created a thread and with which refs; stored apart from delegations so that
// an older build that knows only delegations is never disturbed by it.
type Origin struct {
	V            int      `json:"v"`
	Thread       ThreadID `json:"thread"`
	Kind         string   `json:"kind"`
	ParentThread ThreadID `json:"parentThread,omitempty"`
	Client       string   `json:"client,omitempty"`
	DelegationID string   `json:"delegationId,omitempty"`
	// ClientDelegationID is the delegation id reported for a client's start (no Delegation
	// record is written for it, so older builds see nothing new).
	ClientDelegationID string    `json:"clientDelegationId,omitempty"`
	RequestID          string    `json:"requestId,omitempty"`
	Refs               []string  `json:"refs,omitempty"`
	CreatedAt          time.Time `json:"createdAt"`
}

// ThreadRecord registers a thread this runtime hosts or has seen, so that listing can cover
// native and external threads alike. It holds metadata only.
type ThreadRecord struct {
	V         int       `json:"v"`
	ID        ThreadID  `json:"id"`
	Harness   string    `json:"harness"`
	Cwd       string    `json:"cwd,omitempty"`
	Model     string    `json:"model,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	RecencyAt time.Time `json:"recencyAt"`
	// Goal marks a goal thread (acceptance criteria or test commands): it never runs marker
	// blocks, though others may poll it.
	Goal bool `json:"goal,omitempty"`
}

// DedupeKey is the implicit idempotency key of a delegation without request id: the same
// origin asking the same harness for the same task. Only a hash of the task text is kept.
func DedupeKey(origin, harness, task string) string {
	h := sha256.New()
	for _, part := range []string{origin, harness, task} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TaskTitleRunes bounds a title made from a task.
const TaskTitleRunes = 80

// TaskTitle is a thread's title made from its task, as Codex previews a session: the first
// line that is not blank, its spaces, controls and bidi controls (which would reorder what
// a person reads in any client showing the title) collapsed, cut to TaskTitleRunes.
func TaskTitle(task string) string {
	sep := func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
	}
	for line := range strings.SplitSeq(task, "\n") {
		t := strings.Join(strings.FieldsFunc(line, sep), " ")
		if t == "" {
			continue
		}
		if r := []rune(t); len(r) > TaskTitleRunes {
			t = strings.TrimSpace(string(r[:TaskTitleRunes-1])) + "…"
		}
		return t
	}
	return ""
}
