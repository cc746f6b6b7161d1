package ui

import "github.com/codexhost/codexhost/model"

// statusWord is the one word people see for a thread's or a turn's raw state, the same in
// every pane (model.StatusWord): the raw words show only in the detail view, next to it.
func statusWord(raw string) string {
	return oneLine(model.StatusWord(raw))
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
