package harness

import "time"

// OtherWriter reports whether a process other than ownPid (the App Server the caller talks
// to) holds the writer lock of a thread in codexHome: another Codex process has it open and
// may be running or about to run a turn on it. It only looks, never takes the lock.
func OtherWriter(codexHome, threadID string, ownPid int) bool {
	return nativeOtherWriter(codexHome, threadID, ownPid, time.Time{})
}
