package ui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// pane is what the root routes to and lays out.
type pane interface {
	help.KeyMap
	Init() tea.Cmd
	Update(tea.Msg) tea.Cmd
	View() string     // exactly the size SetSize gave
	SetSize(w, h int) // the root owns the layout; panes never read the terminal
	SetFocused(bool)
	Title() string
	Selected() (threadRef, bool) // the thread the thread keys act on
	Capturing() bool             // a text input in the pane has the keyboard
}

// applier is a message that changes the root itself: action results and requests to it.
type applier interface{ apply(a *App) tea.Cmd }

// App is the root model: it routes messages and keys and lays the panes out.
type App struct {
	c *common

	w, h     int
	compact  bool
	tooSmall bool
	rects    [paneCount]rect
	shown    [paneCount]bool

	focus  paneID
	detail paneID // the pane the compact layout shows beside the fleet
	zoomed bool   // the focused pane has the whole body (z)
	panes  [paneCount]pane

	fleet      *fleetPane
	transcript *transcriptPane
	lineage    *lineagePane
	watches    *listPane[model.Watch]
	undeliv    *listPane[model.Watch]
	tasks      *listPane[api.TaskInfo]
	approvals  approvalsState // approvals.go

	status   *statusBar
	confirm  *confirmDialog
	form     *formDialog
	details  *detailDialog
	setup    *setupPanel // the Codex setup panel (firstrun.go)
	help     help.Model
	showHelp bool
	helpOff  int

	evCursor   string // the operator client's event log, read up to here
	evReady    bool
	evFetching bool
	evAgain    bool
	lost       bool // the connection was lost since the last connect
	quitting   bool // the running turns are being counted before quitting
	// liveTicking: a tick to redraw running turns is on its way.
	liveTicking bool
}

// New builds the app. Options left zero get working defaults.
func New(o Options) *App {
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	keys, st := o.Keys, o.Styles
	c := &common{ctx: o.Context, rt: o.Runtime, keys: &keys, st: &st, profile: o.Profile,
		now: o.Now, embedded: o.Embedded, timeout: o.Timeout, grace: o.Grace, debounce: o.Debounce, reconcile: o.Reconcile, client: o.Client, cwd: o.Cwd, plain: o.Plain, loc: o.Location}
	c.clipboard, c.tmux = clipboardOf(o)
	a := &App{c: c, detail: paneTranscript}
	a.fleet = newFleetPane(c)
	a.transcript = newTranscriptPane(c)
	a.lineage = newLineagePane(c)
	a.watches = newListPane(c, paneWatches, watchingSpec())
	a.undeliv = newListPane(c, paneUndeliverable, undeliverableSpec())
	a.tasks = newListPane(c, paneTasks, tasksSpec())
	a.panes = [paneCount]pane{a.fleet, a.transcript, a.lineage, a.watches, a.undeliv, a.tasks}
	a.status = newStatusBar(c, o.Endpoint)
	a.confirm = &confirmDialog{c: c}
	a.form = &formDialog{c: c}
	a.details = &detailDialog{c: c}
	a.setup = &setupPanel{c: c}
	a.help = help.New()
	a.help.Styles.ShortKey, a.help.Styles.ShortDesc = st.HelpKey, st.HelpDesc
	a.help.Styles.ShortSeparator, a.help.Styles.Ellipsis = st.Muted, st.Muted
	a.panes[a.focus].SetFocused(true)
	return a
}

func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{a.readClientEvents(true), a.setup.check(), a.loadApprovals()}
	for _, p := range a.panes {
		cmds = append(cmds, p.Init())
	}
	return tea.Batch(cmds...)
}

func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := a.update(msg)
	if tick := a.liveTick(); tick != nil {
		cmd = tea.Batch(cmd, tick)
	}
	return a, cmd
}

func (a *App) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.w, a.h = msg.Width, msg.Height
		a.layout()
		return a.broadcast(msg)
	case tea.KeyMsg:
		return a.handleKeys(msg)
	case tea.MouseMsg:
		return a.handleMouse(msg)
	case paneMsg:
		return a.panes[msg.to].Update(msg.inner)
	case spinner.TickMsg:
		return a.status.Update(msg)
	case applier:
		return msg.apply(a)
	}
	return a.broadcast(msg)
}

// broadcast hands a message to every pane; each ignores what is not its own.
func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(a.panes))
	for _, p := range a.panes {
		cmds = append(cmds, p.Update(msg))
	}
	return tea.Batch(cmds...)
}

// handleKey gives a key to the first layer that wants it: an open dialog takes every key,
// then a form, the help view, a pane's text input, the global keys, the thread keys, and
// last the focused pane.
func (a *App) handleKey(k tea.KeyMsg) tea.Cmd {
	km := a.c.keys
	if key.Matches(k, km.Global.ForceQuit) {
		// Pressed again while quitting asks, it quits.
		if _, asking := a.confirm.act.(quitAction); a.quitting || (a.confirm.open && asking) {
			return tea.Quit
		}
		return a.quit()
	}
	if a.confirm.open {
		return a.confirmKey(k)
	}
	if a.approvals.open {
		return a.approvalKey(k)
	}
	if a.tooSmall && a.w > 0 {
		// The small screen has its own keys: quit, and the dialog it draws (tooSmallView).
		if key.Matches(k, km.Global.Quit) {
			return a.quit()
		}
		return nil
	}
	if a.form.open {
		act, _, cmd := a.form.HandleKey(k)
		if act != nil {
			return tea.Batch(cmd, a.perform(act))
		}
		return cmd
	}
	if a.setup.open {
		return a.setupKey(k)
	}
	if a.viewerKey(k) {
		return nil
	}
	p := a.panes[a.focus]
	if p.Capturing() {
		return p.Update(k)
	}
	switch {
	case key.Matches(k, km.Global.Quit):
		return a.quit()
	case key.Matches(k, km.Global.Help):
		a.showHelp, a.helpOff = true, 0
	case key.Matches(k, km.Global.NextPane):
		a.cycle(1)
	case key.Matches(k, km.Global.PrevPane):
		a.cycle(-1)
	case key.Matches(k, km.Global.Fleet):
		a.setFocus(paneFleet)
	case key.Matches(k, km.Global.Transcript):
		a.setFocus(paneTranscript)
	case key.Matches(k, km.Global.Lineage):
		a.setFocus(paneLineage)
	case key.Matches(k, km.Global.Watches):
		a.setFocus(paneWatches)
	case key.Matches(k, km.Global.Undeliverable):
		a.setFocus(paneUndeliverable)
	case key.Matches(k, km.Global.Tasks):
		a.setFocus(paneTasks)
	case key.Matches(k, km.Global.Open):
		return a.openForm()
	case key.Matches(k, km.Global.Refresh):
		return a.refreshKey()
	case key.Matches(k, km.Global.Suspend):
		return tea.Suspend
	case key.Matches(k, km.Global.Approvals):
		return a.openApproval()
	case key.Matches(k, km.Global.Setup):
		a.setup.show(false)
		return a.setup.check()
	default:
		return a.actionKey(k, p)
	}
	return nil
}

func (a *App) refreshAll() tea.Cmd {
	return tea.Batch(a.fleet.reload(), a.watches.reload(), a.undeliv.reload(), a.tasks.reload(), a.transcript.refresh(), a.lineage.reload(), a.loadApprovals())
}

func (a *App) View() string {
	if a.w <= 0 || a.h <= 0 {
		return "loading…"
	}
	if a.tooSmall {
		return a.tooSmallView()
	}
	bodyH := a.h - 2
	var body []string
	if a.showHelp {
		lines := helpLines(a.c, a.w)
		a.helpOff = max(0, min(a.helpOff, len(lines)-bodyH))
		body = fitLines(lines[a.helpOff:], a.w, bodyH)
	} else {
		body = a.compose(bodyH)
	}
	switch {
	case a.confirm.open:
		body = a.overlay(body, a.confirm.View(a.w-4))
	case a.approvals.open:
		body = a.overlay(body, a.approvalView(a.w-4))
	case a.form.open:
		body = a.overlay(body, a.form.View(a.w-4))
	case a.details.open:
		body = a.overlay(body, a.details.View(a.w-4, bodyH))
	case a.setup.open:
		body = a.overlay(body, a.setup.View(a.w-4, bodyH))
	}
	a.status.running, a.status.zoomed = a.fleet.active, a.zoomed
	a.status.awaiting, a.status.undeliverable = a.attention()
	a.status.approvals = len(a.approvals.pending)
	body = append(body, a.status.View(a.w), a.footer())
	return strings.Join(body, "\n")
}

func (a *App) footer() string {
	km := a.c.keys
	var b []key.Binding
	switch {
	case a.confirm.open:
		b = a.confirm.ShortHelp()
	case a.form.open:
		b = a.form.ShortHelp()
	case a.details.open:
		b = a.details.ShortHelp()
	case a.setup.open:
		b = a.setup.ShortHelp()
	case a.showHelp:
		closeKey := km.Global.Help
		closeKey.SetHelp("any key", "close help")
		b = []key.Binding{navHelp(km.List.Up, km.List.Down, "scroll"), closeKey}
	default:
		p := a.panes[a.focus]
		b = p.ShortHelp()
		if !p.Capturing() {
			if ref, ok := p.Selected(); ok {
				b = append(b, a.threadKeysFor(ref)...)
			}
			b = append(b, km.Global.NextPane, km.Global.Open)
			if !a.zoomed {
				b = append(b, a.zoomHelp())
			}
			b = append(b, km.Global.Info)
			// Help and quit always show, at the end: the rest is cut to make room.
			a.help.Width = 0
			end := a.help.ShortHelpView(a.footerEnd())
			sep := a.c.st.Muted.Render(" • ")
			rest := a.fitKeys(b, a.w-ansiWidth(end)-ansiWidth(sep))
			return pad(rest+sep+end, a.w)
		}
	}
	a.help.Width = a.w
	return pad(a.help.ShortHelpView(b), a.w)
}

// fitKeys renders as many whole key hints as fit in room cells, then "…" for the ones left
// out (? lists them all): a hint cut in the middle ("m se…", "tab …") names no action.
func (a *App) fitKeys(b []key.Binding, room int) string {
	more := a.c.st.Muted.Render(" • …")
	for n := len(b); n > 0; n-- {
		s := a.help.ShortHelpView(b[:n])
		if n < len(b) {
			s += more
		}
		if ansiWidth(s) <= room {
			return s
		}
	}
	return truncate(a.c.st.Muted.Render("…"), room)
}

// confirmKey gives a key to the open confirmation dialog.
func (a *App) confirmKey(k tea.KeyMsg) tea.Cmd {
	done, res := a.confirm.HandleKey(k)
	switch {
	case !done:
		return nil
	case res.ok:
		return a.perform(res.act)
	}
	a.status.set(levelInfo, "cancelled: "+res.act.label(a.c))
	return nil
}

// tooSmallView says the terminal is too small, or, when a confirmation is open (quitting
// while turns run), draws that alone, so the key that answers it answers what is seen.
func (a *App) tooSmallView() string {
	st := a.c.st
	if a.confirm.open {
		box := []string{a.confirm.title, a.c.keys.Dialog.Confirm.Help().Key + " " + a.confirm.yes + " · other keys cancel"}
		if a.w >= 20 {
			box = a.confirm.View(a.w)
		}
		if len(box) > a.h && a.h > 1 {
			// Its title and its end (the key that answers it) matter most.
			box = append(box[:1:1], box[len(box)-a.h+1:]...)
		}
		return strings.Join(fitLines(box, a.w, a.h), "\n")
	}
	lines := []string{
		st.Danger.Render(st.G.Danger + "terminal too small"),
		"this one is " + itoa(a.w) + "×" + itoa(a.h) + "; codexhost needs at least " + itoa(minWidth) + "×" + itoa(minHeight),
		st.Muted.Render("enlarge the window, or press " + a.c.keys.Global.Quit.Help().Key + " to quit"),
	}
	if a.quitting {
		// q was pressed and the runtime is asked which turns run (seconds on a large home):
		// without this line the screen would still invite a q that has been pressed.
		lines[2] = a.status.spin.View() + " " + st.Muted.Render("quitting: checking for running turns…")
	}
	top := max((a.h-len(lines))/2, 0)
	out := make([]string, 0, a.h)
	for range top {
		out = append(out, "")
	}
	for _, l := range lines {
		for _, wl := range wrap(l, a.w) {
			out = append(out, padLeft(wl, (a.w+ansiWidth(wl))/2))
		}
	}
	return strings.Join(fitLines(out, a.w, a.h), "\n")
}
