package ui

import "github.com/codexhost/codexhost/model"

// statusWord is the one word people see for a thread's or a turn's raw state, the same in
// every pane: the raw words (notLoaded, active, systemError, inProgress, failed) belong to the
// runtime and show only in the detail view, next to this word.
func statusWord(raw string) string {
	switch raw {
	case model.ThreadActive, model.TurnInProgress:
		return "running"
	case model.ThreadIdle:
		return "idle"
	case model.ThreadNotLoaded:
		return "stored"
	case model.ThreadSystemError, model.TurnFailed, "error":
		return "error"
	case model.TurnInterrupted:
		return "interrupted"
	case model.TurnCompleted:
		return "completed"
	case "":
		return "unknown"
	}
	return oneLine(raw)
}

// rawStatus is a status word with the raw state behind it, for the detail view:
// "stored (notLoaded)".
func rawStatus(raw string) string {
	w := statusWord(raw)
	if raw == "" || w == raw {
		return w
	}
	return w + " (" + oneLine(raw) + ")"
}
