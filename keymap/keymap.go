// Package keymap holds every key binding of the terminal app, one struct per scope, with the
// help text the help view and the footer show. Users rebind actions in config.toml [keys].
package keymap

import "github.com/charmbracelet/bubbles/key"

// Global keys work in every pane when no dialog or text input has the keyboard.
type Global struct {
	Quit          key.Binding
	ForceQuit     key.Binding // also reaches quit from dialogs and text inputs
	Help          key.Binding
	NextPane      key.Binding
	PrevPane      key.Binding
	Fleet         key.Binding
	Transcript    key.Binding
	Lineage       key.Binding
	Watches       key.Binding
	Undeliverable key.Binding
	Tasks         key.Binding
	Open          key.Binding
	Refresh       key.Binding
	Suspend       key.Binding
	Zoom          key.Binding // the focused pane takes the whole screen, and back
	Info          key.Binding // the whole text of what is cut: status bar, selection, reasons
	Setup         key.Binding // the Codex setup panel
	Approvals     key.Binding // the oldest approval request that waits for an answer
}

// Approval keys answer the approval request the approval dialog shows.
type Approval struct {
	Accept        key.Binding
	AcceptSession key.Binding
	Decline       key.Binding
	Cancel        key.Binding // cancel interrupts the turn
	Next          key.Binding // the next pending request
	Close         key.Binding // leave it pending
}

// Thread keys act on the thread selected in the focused pane.
type Thread struct {
	Archive  key.Binding
	Send     key.Binding
	Delegate key.Binding
	Watch    key.Binding
	Cancel   key.Binding
	Copy     key.Binding // the thread's id to the clipboard
	CopyLink key.Binding // the thread's codex://threads/ link to the clipboard
}

// Tasks keys act on the task under the cursor of the tasks pane.
type Tasks struct {
	Cancel key.Binding
}

// List keys move a cursor through rows (fleet, lineage, watch lists).
type List struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Select   key.Binding
}

// Fleet keys are the catalog pane's own. Continue is live in the transcript pane too.
type Fleet struct {
	Search      key.Binding
	ClearSearch key.Binding
	Continue    key.Binding // continue the selected native session as a supervised thread
}

// Transcript keys scroll a transcript.
type Transcript struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Follow   key.Binding
	// Searching the transcript's text.
	Search      key.Binding
	NextMatch   key.Binding
	PrevMatch   key.Binding
	ClearSearch key.Binding
}

// Lineage keys fold the delegation tree.
type Lineage struct {
	Expand   key.Binding
	Collapse key.Binding
	Toggle   key.Binding
}

// Setup keys act in the Codex setup panel (shown when the App Server is unavailable).
type Setup struct {
	Install key.Binding
	Close   key.Binding
}

// Dialog keys answer a yes/no question: only Confirm says yes.
type Dialog struct {
	Confirm key.Binding
	Cancel  key.Binding
}

// Input keys drive forms and the search line.
type Input struct {
	Submit    key.Binding
	Cancel    key.Binding
	NextField key.Binding
	PrevField key.Binding
	NextPick  key.Binding
	PrevPick  key.Binding
}

// KeyMap is every scope. Build it with Default; it is a value, so each app and test owns one.
type KeyMap struct {
	Global     Global
	Thread     Thread
	Tasks      Tasks
	List       List
	Fleet      Fleet
	Transcript Transcript
	Lineage    Lineage
	Dialog     Dialog
	Approval   Approval
	Input      Input
	Setup      Setup
}

func bind(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// Default is the built-in keymap.
func Default() KeyMap {
	return KeyMap{
		Global: Global{
			Quit:          bind("q", "quit", "q"),
			ForceQuit:     bind("ctrl+c", "quit", "ctrl+c"),
			Help:          bind("?", "help", "?"),
			NextPane:      bind("tab", "next pane", "tab"),
			PrevPane:      bind("shift+tab", "previous pane", "shift+tab"),
			Fleet:         bind("1", "fleet", "1"),
			Transcript:    bind("2", "transcript", "2"),
			Lineage:       bind("3", "lineage", "3"),
			Watches:       bind("4", "watches", "4"),
			Undeliverable: bind("5", "undeliverable", "5"),
			Tasks:         bind("6", "tasks", "6"),
			Open:          bind("o", "open thread", "o"),
			Refresh:       bind("r", "refresh", "r"),
			Suspend:       bind("ctrl+z", "suspend", "ctrl+z"),
			Zoom:          bind("z", "zoom pane", "z"),
			Info:          bind("i", "show in full", "i"),
			Setup:         bind("I", "Codex setup", "I"),
			Approvals:     bind("!", "approvals", "!"),
		},
		Thread: Thread{
			Archive:  bind("a", "archive", "a"),
			Send:     bind("m", "send message", "m"),
			Delegate: bind("d", "delegate", "d"),
			Watch:    bind("w", "watch", "w"),
			Cancel:   bind("x", "cancel turn", "x"),
			Copy:     bind("y", "copy id", "y"),
			CopyLink: bind("Y", "copy link", "Y"),
		},
		Tasks: Tasks{
			Cancel: bind("x", "cancel task", "x"),
		},
		List: List{
			Up:       bind("↑/k", "up", "up", "k"),
			Down:     bind("↓/j", "down", "down", "j"),
			PageUp:   bind("pgup", "page up", "pgup", "ctrl+u"),
			PageDown: bind("pgdn", "page down", "pgdown", "ctrl+d"),
			Top:      bind("g/home", "top", "g", "home"),
			Bottom:   bind("G/end", "bottom", "G", "end"),
			Select:   bind("enter", "open transcript", "enter"),
		},
		Fleet: Fleet{
			Search:      bind("/", "search/status", "/"),
			ClearSearch: bind("esc", "clear search", "esc"),
			Continue:    bind("c", "continue session", "c"),
		},
		Transcript: Transcript{
			Up:          bind("↑/k", "scroll up", "up", "k"),
			Down:        bind("↓/j", "scroll down", "down", "j"),
			PageUp:      bind("pgup", "page up (older)", "pgup", "ctrl+u"),
			PageDown:    bind("pgdn", "page down", "pgdown", "ctrl+d"),
			Top:         bind("g/home", "oldest loaded", "g", "home"),
			Follow:      bind("G/end", "follow live", "G", "end"),
			Search:      bind("/", "search text", "/"),
			NextMatch:   bind("n", "next match", "n"),
			PrevMatch:   bind("N", "previous match", "N"),
			ClearSearch: bind("esc", "clear search", "esc"),
		},
		Lineage: Lineage{
			Expand:   bind("→/l", "expand", "right", "l"),
			Collapse: bind("←/h", "collapse", "left", "h"),
			Toggle:   bind("space", "fold", " "),
		},
		Approval: Approval{
			Accept:        bind("y", "accept", "y"),
			AcceptSession: bind("s", "accept for the session", "s"),
			Decline:       bind("n", "decline", "n"),
			Cancel:        bind("c", "cancel the turn", "c"),
			Next:          bind("tab", "next request", "tab"),
			Close:         bind("esc", "leave it pending", "esc"),
		},
		Dialog: Dialog{
			Confirm: bind("y", "yes", "y"),
			Cancel:  bind("any other key", "no", "n", "esc"),
		},
		Setup: Setup{
			Install: bind("i", "install Codex", "i"),
			Close:   bind("esc", "close", "esc"),
		},
		Input: Input{
			Submit:    bind("enter", "submit", "enter"),
			Cancel:    bind("esc", "cancel", "esc"),
			NextField: bind("tab", "next field", "tab"),
			PrevField: bind("shift+tab", "previous field", "shift+tab"),
			NextPick:  bind("↓", "next choice", "down"),
			PrevPick:  bind("↑", "previous choice", "up"),
		},
	}
}
