package api

import "time"

// Limits of the thread methods' parameters, shared by the runtime that enforces them and the
// faces that check input before sending it.
const (
	// MaxTextBytes bounds a task or message: large enough for any prompt, small enough that a
	// runaway pipe cannot exhaust the runtime.
	MaxTextBytes = 1 << 20
	// DefaultWaitTimeout is a thread wait's bound when none is given; MaxWaitTimeout the most.
	DefaultWaitTimeout = 30 * time.Second
	MaxWaitTimeout     = time.Hour
)
