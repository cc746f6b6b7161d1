package model

// StatusWord is the one word people see for a thread's or a turn's raw state, the same in
// the terminal app and in the operator commands' tables: the raw words (notLoaded, active,
// systemError, inProgress) belong to the runtime and its JSON. Unknown words pass through;
// "" is "unknown".
func StatusWord(raw string) string {
	switch raw {
	case ThreadActive, TurnInProgress:
		return "running"
	case ThreadIdle:
		return "idle"
	case ThreadNotLoaded:
		return "stored"
	case ThreadSystemError, TurnFailed, "error":
		return "error"
	case TurnInterrupted:
		return "interrupted"
	case TurnCompleted:
		return "completed"
	case "":
		return "unknown"
	}
	return raw
}
