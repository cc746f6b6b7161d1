//go:build !linux

package harness

import "time"

// nativeLockHolders cannot see lock holders without /proc/locks, so a thread running in
// another Codex process reads as that process's App Server shows it (interrupted).
func nativeLockHolders(path string) []int { return nil }

// nativeProcStart is unknown without /proc.
func nativeProcStart(pid int) (time.Time, bool) { return time.Time{}, false }
