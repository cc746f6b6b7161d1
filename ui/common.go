// Package ui is the terminal app: panes over the runtime API, a root model that routes
// messages and lays the panes out, and dialogs for the actions. Every runtime call runs in a
// command with a timeout; the panes never block Update.
package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/keymap"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/themes"
)

// Runtime is the app's side of the runtime API, called through its typed methods;
// *api.Client satisfies it.
type Runtime = api.Requester

// Lineage is the delegation tree around Focus, root first, parents before their children.
type Lineage struct {
	Focus     string
	Root      string
	Nodes     []LineageNode
	Truncated bool
}

// LineageNode is one thread of a lineage.
type LineageNode struct {
	Thread   model.ThreadInfo
	Parent   string
	Children []string
	Err      string // the thread could not be read; Thread holds only its id
	// MarkerGen is the marker generation of a thread a task-create block created; 0 otherwise.
	MarkerGen int
}

// Options configure the app.
type Options struct {
	Context  context.Context // ends every runtime call when the app stops
	Runtime  Runtime
	Keys     keymap.KeyMap
	Styles   themes.Styles
	Profile  termenv.Profile // colour profile of markdown output
	Endpoint string          // shown in the status bar
	Client   string          // the operator client the app connects as; its notifications show
	Cwd      string          // the working directory delegations default to
	Now      func() time.Time
	Timeout  time.Duration // bound of every runtime call
	Grace    time.Duration // how long a dialog opened by an async result ignores keys
	Debounce time.Duration // how long the fleet cursor rests before the selection loads
	// Reconcile is how often the fleet's visible pages are read again, so that sessions made
	// in other Codex clients appear (at most every ReconcileEvery); zero turns the timer off.
	Reconcile time.Duration
	Plain     bool // no markdown rendering of assistant text
	// Embedded reports whether the app runs the runtime itself, so that quitting stops it and
	// its running turns; nil means it never does.
	Embedded func() bool
	Location *time.Location // times are shown in it; default the local zone
	// Clipboard is the terminal copy sequences (OSC 52) are written to; default standard
	// output, where the program draws.
	Clipboard io.Writer
	Getenv    func(string) string // reads $TMUX; default os.Getenv
}

// common is what every pane shares, by pointer. Commands capture values they need when they
// are built; the only fields they read later (ctx, rt, timeout) never change.
type common struct {
	ctx      context.Context
	rt       Runtime
	keys     *keymap.KeyMap
	st       *themes.Styles
	profile  termenv.Profile
	now      func() time.Time
	embedded func() bool
	timeout  time.Duration
	grace    time.Duration
	debounce time.Duration
	// reconcile arms the fleet's reconcile timer (Options.Reconcile).
	reconcile time.Duration
	client    string
	cwd       string
	plain     bool
	loc       *time.Location
	clipboard io.Writer // where copy sequences go (Options.Clipboard)
	tmux      bool      // the app runs inside tmux, whose passthrough copy sequences need

	defaultHost string // the catalog's default host, once known; read and written in Update only
	// ids are the thread and turn ids the app has loaded, so that each shows by its shortest
	// unique form; read and written in Update only.
	ids idIndex
}

// call runs one runtime method with the app's timeout.
func call[P, R any](c *common, m api.Method[P, R], p P) (R, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	return m.Call(ctx, c.rt, p)
}

// threadRef names a thread and how to read it: through the catalog of Host, or through
// thread.read when Host is empty (threads of external harnesses).
type threadRef struct {
	ID      string
	Host    string
	Title   string
	Status  string
	Waiting bool
	Cwd     string
	Harness string
	// Failed: the thread's latest turn failed; the thread itself is at rest (idle).
	Failed bool
	// Linked: a codexhost thread (ID) drives this native session (fleet_links.go).
	Linked  bool
	Session string // the native session's own id, when it is not ID
	// BranchHost and BranchThread name the source of a branch.
	BranchHost, BranchThread string
	// Metered: a codexhost thread, whose token usage the fleet shows (Usage, nil while
	// unknown); sessions no codexhost thread drives have none.
	Metered bool
	Usage   *model.Usage
}

func (r threadRef) catalog() bool { return r.Host != "" }

// node reports a row of a paired node (host node:<name>).
func (r threadRef) node() bool { return strings.HasPrefix(r.Host, api.NodeHostPrefix) }

// name is how a prompt or the status bar calls the thread.
func (c *common) name(r threadRef) string {
	if r.Title != "" {
		return fmt.Sprintf("%s %q", c.short(r.ID), truncate(r.Title, 40))
	}
	return c.short(r.ID)
}

// refFromInfo is the reference of a runtime thread: native ones are read through the catalog.
func (c *common) refFromInfo(t model.ThreadInfo) threadRef {
	r := threadRef{ID: t.ID, Title: clean(t.Title), Status: t.Status, Waiting: t.WaitingOnApproval, Cwd: clean(t.Cwd), Harness: t.Harness,
		Failed: lastFailed(t) && t.Status != model.ThreadActive, Metered: true, Usage: t.Usage}
	if t.Harness == model.NativeHarness {
		r.Host = c.defaultHost
	}
	if t.BranchOf != nil {
		r.BranchHost, r.BranchThread = clean(t.BranchOf.Host), clean(t.BranchOf.Thread)
	}
	return r
}

// errText is the one-line form of an error for the status bar and panes.
func errText(err error) string {
	var me *model.Error
	if errors.As(err, &me) {
		s := string(me.Code) + ": " + me.Message
		if me.Hint != "" {
			s += " (" + me.Hint + ")"
		}
		return clean(s)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the runtime did not answer in time"
	}
	return clean(err.Error())
}

// clean makes untrusted text safe to draw, through the same sanitiser as every command's
// output: escape sequences, other controls and bidi controls show as visible <U+XXXX> marks,
// so that a person sees that the text carried them, rather than losing them unseen. Tabs
// become spaces (a pane measures cells); newlines stay.
func clean(s string) string {
	if s == "" {
		return s
	}
	return termsafe.String(strings.ReplaceAll(s, "\t", "    "))
}

// oneLine is clean text on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(clean(s)), " ")
}

// truncate cuts s to width cells, with an ellipsis when it cut.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// pad fills s with spaces to exactly width cells, cutting it when longer.
func pad(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w > width {
		s = ansi.Truncate(s, width, "…")
		w = ansi.StringWidth(s)
	}
	if w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// padLeft right-aligns s in width cells.
func padLeft(s string, width int) string {
	w := ansi.StringWidth(s)
	if w >= width {
		return truncate(s, width)
	}
	return strings.Repeat(" ", width-w) + s
}

// fit makes text exactly w cells wide and h lines tall: what every pane's View returns, so
// the layout never depends on a pane's good behaviour.
func fit(text string, w, h int) string {
	return strings.Join(fitLines(strings.Split(text, "\n"), w, h), "\n")
}

func fitLines(lines []string, w, h int) []string {
	out := make([]string, h)
	for i := range h {
		if i < len(lines) {
			out[i] = pad(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", max(w, 0))
		}
	}
	return out
}

// wrap breaks clean text into lines of at most width cells.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if para == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(para, width, ""), "\n")...)
	}
	return out
}

// age is how long ago t was, in one short word.
func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	case d < 365*24*time.Hour:
		return fmt.Sprintf("%dw", int(d/(7*24*time.Hour)))
	}
	return fmt.Sprintf("%dy", int(d/(365*24*time.Hour)))
}

// badge is a thread status as glyph and word (statusWord); the glyph alone when short is set.
func (c *common) badge(status string, waiting bool, short bool) string {
	st := c.st
	var g, style = "?", st.BadgeIdle
	word := statusWord(status)
	switch {
	case waiting:
		g, word, style = "◆", "waiting", st.BadgeWaiting
	case status == model.ThreadActive:
		g, style = "●", st.BadgeActive
	case status == model.ThreadIdle:
		g, style = "○", st.BadgeIdle
	case status == model.ThreadNotLoaded:
		g, style = "◌", st.BadgeStored
	case statusWord(status) == "error":
		g, style = "✗", st.BadgeError
	}
	if short {
		return style.Render(g)
	}
	return style.Render(pad(g+" "+word, badgeWidth))
}

// refBadge is a thread's badge as every pane shows it: a thread at rest whose latest turn
// failed reads as an error, in the fleet, the transcript and the lineage alike.
func (c *common) refBadge(status string, waiting, failed, short bool) string {
	if failed && status != model.ThreadActive {
		return c.badge("error", false, short)
	}
	return c.badge(status, waiting, short)
}

// badgeWidth fits the longest badge of a thread, "◆ waiting"; a longer unknown word is cut.
const badgeWidth = 11

// statusWords is the long form of a status for prompts and headers, in the words of
// statusWord.
func statusWords(status string, waiting bool) string {
	switch {
	case waiting:
		return statusWord(status) + ", waiting on approval"
	case status == model.ThreadNotLoaded:
		return "stored, activity unknown"
	case status == "":
		return "status unknown"
	}
	return statusWord(status)
}

// lastFailed reports a thread whose latest turn failed, by its run status or its last turn.
func lastFailed(t model.ThreadInfo) bool {
	return t.RunStatus == model.StatusFailed || (t.LastTurn != nil && t.LastTurn.Status == model.TurnFailed)
}
