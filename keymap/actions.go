package keymap

import (
	"sync"

	"github.com/charmbracelet/bubbles/key"
)

// Action is one named binding: its config name ("thread.archive"), scope, and the subcommands
// that do the same headlessly. Navigation keys have no subcommand.
type Action struct {
	Name     string
	Scope    string
	Binding  *key.Binding
	Commands []string // cobra command paths, e.g. "thread send"; empty for navigation
}

// Scope names, as used in config.toml [keys] ("scope.action").
const (
	ScopeGlobal     = "global"
	ScopeThread     = "thread"
	ScopeTasks      = "tasks"
	ScopeList       = "list"
	ScopeFleet      = "fleet"
	ScopeTranscript = "transcript"
	ScopeLineage    = "lineage"
	ScopeDialog     = "dialog"
	ScopeApproval   = "approval"
	ScopeInput      = "input"
	ScopeSetup      = "setup"
)

// Actions lists every binding of km with pointers into km, so a caller may rebind through it.
// The order is the help view's.
func (km *KeyMap) Actions() []Action {
	g, t, l, f, tr, ln, d, in := &km.Global, &km.Thread, &km.List, &km.Fleet, &km.Transcript, &km.Lineage, &km.Dialog, &km.Input
	a := func(scope, name string, b *key.Binding, cmds ...string) Action {
		return Action{Name: scope + "." + name, Scope: scope, Binding: b, Commands: cmds}
	}
	return []Action{
		a(ScopeGlobal, "quit", &g.Quit),
		a(ScopeGlobal, "forceQuit", &g.ForceQuit),
		a(ScopeGlobal, "help", &g.Help),
		a(ScopeGlobal, "nextPane", &g.NextPane),
		a(ScopeGlobal, "prevPane", &g.PrevPane),
		a(ScopeGlobal, "fleet", &g.Fleet, "sessions", "hosts"),
		a(ScopeGlobal, "transcript", &g.Transcript, "transcript", "thread read"),
		a(ScopeGlobal, "lineage", &g.Lineage, "lineage"),
		a(ScopeGlobal, "watches", &g.Watches, "thread watches"),
		a(ScopeGlobal, "undeliverable", &g.Undeliverable, "thread watches"),
		a(ScopeGlobal, "tasks", &g.Tasks, "task status"),
		a(ScopeGlobal, "open", &g.Open, "transcript", "thread read"),
		a(ScopeGlobal, "refresh", &g.Refresh, "hosts", "sessions"),
		a(ScopeGlobal, "suspend", &g.Suspend),
		a(ScopeGlobal, "zoom", &g.Zoom),
		a(ScopeGlobal, "info", &g.Info),
		a(ScopeGlobal, "setup", &g.Setup, "codex status", "doctor"),
		a(ScopeGlobal, "approvals", &g.Approvals, "approvals"),

		a(ScopeThread, "archive", &t.Archive, "archive"),
		a(ScopeThread, "send", &t.Send, "thread send"),
		a(ScopeThread, "delegate", &t.Delegate, "delegate start"),
		a(ScopeThread, "watch", &t.Watch, "thread watch"),
		a(ScopeThread, "cancel", &t.Cancel, "thread cancel"),
		a(ScopeThread, "copy", &t.Copy),
		a(ScopeThread, "copyLink", &t.CopyLink),

		a(ScopeTasks, "cancel", &km.Tasks.Cancel, "task cancel"),

		a(ScopeApproval, "accept", &km.Approval.Accept, "approve"),
		a(ScopeApproval, "acceptSession", &km.Approval.AcceptSession, "approve"),
		a(ScopeApproval, "decline", &km.Approval.Decline, "approve"),
		a(ScopeApproval, "cancel", &km.Approval.Cancel, "approve"),
		a(ScopeApproval, "next", &km.Approval.Next, "approvals"),
		a(ScopeApproval, "close", &km.Approval.Close),

		a(ScopeList, "up", &l.Up),
		a(ScopeList, "down", &l.Down, "sessions"),
		a(ScopeList, "pageUp", &l.PageUp),
		a(ScopeList, "pageDown", &l.PageDown, "sessions"),
		a(ScopeList, "top", &l.Top),
		a(ScopeList, "bottom", &l.Bottom),
		a(ScopeList, "select", &l.Select, "transcript", "thread read"),

		a(ScopeFleet, "search", &f.Search, "sessions"),
		a(ScopeFleet, "clearSearch", &f.ClearSearch),
		a(ScopeFleet, "continue", &f.Continue, "continue"),

		a(ScopeTranscript, "up", &tr.Up, "transcript"),
		a(ScopeTranscript, "down", &tr.Down),
		a(ScopeTranscript, "pageUp", &tr.PageUp, "transcript"),
		a(ScopeTranscript, "pageDown", &tr.PageDown),
		a(ScopeTranscript, "top", &tr.Top),
		a(ScopeTranscript, "follow", &tr.Follow, "transcript", "thread read"),
		a(ScopeTranscript, "search", &tr.Search),
		a(ScopeTranscript, "nextMatch", &tr.NextMatch),
		a(ScopeTranscript, "prevMatch", &tr.PrevMatch),
		a(ScopeTranscript, "clearSearch", &tr.ClearSearch),

		a(ScopeLineage, "expand", &ln.Expand),
		a(ScopeLineage, "collapse", &ln.Collapse),
		a(ScopeLineage, "toggle", &ln.Toggle),

		a(ScopeDialog, "confirm", &d.Confirm),
		a(ScopeDialog, "cancel", &d.Cancel),

		a(ScopeInput, "submit", &in.Submit),
		a(ScopeInput, "cancel", &in.Cancel),
		a(ScopeInput, "nextField", &in.NextField),
		a(ScopeInput, "prevField", &in.PrevField),
		a(ScopeInput, "nextPick", &in.NextPick),
		a(ScopeInput, "prevPick", &in.PrevPick),

		a(ScopeSetup, "install", &km.Setup.Install, "codex install"),
		a(ScopeSetup, "close", &km.Setup.Close),
	}
}

// IsNavigation reports whether an action only moves through the app's own view (or acts on
// the terminal alone, as copying to the clipboard does) and so needs no subcommand; every
// other action must name one.
func IsNavigation(name string) bool { return navigation()[name] }

// Built on first use: a package-level map or regexp is built by every process at start.
var navigation = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"global.quit": true, "global.forceQuit": true, "global.help": true, "global.nextPane": true,
		"global.prevPane": true, "global.suspend": true,
		"list.up": true, "list.pageUp": true, "list.top": true, "list.bottom": true,
		"fleet.clearSearch": true,
		"transcript.down":   true, "transcript.pageDown": true, "transcript.top": true,
		"lineage.expand": true, "lineage.collapse": true, "lineage.toggle": true,
		"dialog.confirm": true, "dialog.cancel": true, "approval.close": true,
		"input.submit": true, "input.cancel": true, "input.nextField": true, "input.prevField": true,
		"input.nextPick": true, "input.prevPick": true,
		// App-only: they call no runtime method.
		"global.zoom": true, "global.info": true, "thread.copy": true, "thread.copyLink": true,
		"transcript.search": true, "transcript.nextMatch": true, "transcript.prevMatch": true, "transcript.clearSearch": true,
		"setup.close": true,
	}
})

// activeTogether lists the scopes whose keys are live at the same moment; a key bound twice
// within one of these groups would shadow one of its actions.
var activeTogether = []struct {
	where  string
	scopes []string
	extra  []string // single actions of other scopes that are also live
}{
	{"the fleet pane", []string{ScopeGlobal, ScopeThread, ScopeList, ScopeFleet}, nil},
	{"the transcript pane", []string{ScopeGlobal, ScopeThread, ScopeTranscript}, []string{"fleet.continue"}},
	{"the lineage pane", []string{ScopeGlobal, ScopeThread, ScopeList, ScopeLineage}, nil},
	{"a dialog", []string{ScopeDialog}, []string{"global.forceQuit"}},
	{"a form", []string{ScopeInput}, []string{"global.forceQuit"}},
	{"the Codex setup panel", []string{ScopeSetup}, []string{"global.forceQuit", "global.quit", "list.up", "list.down", "list.pageUp", "list.pageDown"}},
}
