package ui

// The Codex setup panel: when the runtime finds no codex binary for its App Server, the app
// says why and how to fix it, in full, and offers to install the pinned @openai/codex with npm
// into the home (codex.install), showing npm's lines as they come. When the install is done
// the runtime starts the App Server and the fleet loads again; nothing restarts. Without the
// install everything else (external harnesses, watches, the runtime's own threads) works.

import (
	"context"
	"errors"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// setupInstallTimeout bounds the install call; the runtime bounds npm itself too.
const setupInstallTimeout = 20 * time.Minute

// maxSetupLines bounds npm's lines kept for the panel.
const maxSetupLines = 500

type setupPanel struct {
	c         *common
	open      bool
	known     bool // a status arrived
	dismissed bool // closed by the person: a later check does not open it again
	st        api.CodexStatus

	installing bool
	since      time.Time
	job        int
	lines      []string // npm's output, oldest first
	res        *api.CodexInstallResult
	err        *model.Error

	off      int // first content row shown
	rows     int // content rows shown by the last View, for paging
	follow   bool
	openedAt time.Time
	grace    time.Duration
}

type codexStatusMsg struct {
	st  api.CodexStatus
	err error
}

type setupLineMsg struct {
	line string
	next tea.Cmd
}

type setupDoneMsg struct {
	res api.CodexInstallResult
	err error
}

// check asks the runtime what its locator finds. A runtime that does not offer it (older, or
// a caller that is not the home's operator) leaves the panel closed.
func (p *setupPanel) check() tea.Cmd {
	c := p.c
	return func() tea.Msg {
		st, err := call(c, api.GetCodexStatus, struct{}{})
		return codexStatusMsg{st: st, err: err}
	}
}

func (m codexStatusMsg) apply(a *App) tea.Cmd {
	p := a.setup
	if m.err != nil {
		return nil
	}
	p.st, p.known = m.st, true
	if m.st.Available || p.installing {
		return nil
	}
	a.status.set(levelError, "Codex is not available: press "+a.c.keys.Global.Setup.Help().Key+" to see why and to install it")
	// A binary named in the configuration is the person's own choice: the status bar says it
	// fails, and the panel opens by itself only on a first run, where nothing names one.
	if m.st.NamedBy == "" && !p.dismissed && !p.open {
		p.show(true)
	}
	return nil
}

// show opens the panel; opened by a result rather than a key, it ignores keys for a moment.
func (p *setupPanel) show(async bool) {
	p.open, p.off, p.follow = true, 0, p.installing
	p.openedAt, p.grace = p.c.now(), 0
	if async {
		p.grace = p.c.grace
	}
}

// setupKey handles a key while the panel is open: it takes every key.
func (a *App) setupKey(k tea.KeyMsg) tea.Cmd {
	p, km := a.setup, a.c.keys
	if p.grace > 0 && p.c.now().Sub(p.openedAt) < p.grace {
		return nil
	}
	switch {
	case key.Matches(k, km.Setup.Install):
		return a.startInstall()
	case key.Matches(k, km.Setup.Close):
		p.open, p.dismissed = false, true
		if p.installing {
			a.status.set(levelInfo, "the Codex install goes on; press "+km.Global.Setup.Help().Key+" to watch it")
		}
	case key.Matches(k, km.Global.Quit):
		return a.quit()
	case key.Matches(k, km.List.Down):
		p.scroll(1)
	case key.Matches(k, km.List.Up):
		p.scroll(-1)
	case key.Matches(k, km.List.PageDown):
		p.scroll(max(p.rows-1, 1))
	case key.Matches(k, km.List.PageUp):
		p.scroll(-max(p.rows-1, 1))
	}
	return nil
}

func (p *setupPanel) scroll(n int) {
	p.off = max(p.off+n, 0) // View clamps the bottom
	p.follow = false
}

// startInstall runs codex.install when the runtime said it would run.
func (a *App) startInstall() tea.Cmd {
	p := a.setup
	switch {
	case p.installing:
		return nil
	case !p.known:
		return status(levelInfo, "still asking the runtime about Codex")
	case !p.st.CanInstall:
		if p.st.InstallRefusal != nil {
			a.status.set(levelError, "cannot install from here: "+p.st.InstallRefusal.Message)
		}
		return nil
	}
	p.installing, p.since, p.lines, p.res, p.err, p.follow = true, p.c.now(), nil, nil, nil, true
	var spin tea.Cmd
	p.job, spin = a.status.start("installing Codex " + p.st.PinnedVersion)
	return tea.Batch(spin, p.install())
}

// install calls codex.install, handing npm's lines over as they come when the connection can.
func (p *setupPanel) install() tea.Cmd {
	c := p.c
	params := api.CodexInstallParams{Progress: true}
	pr, ok := c.rt.(progressRuntime)
	if !ok {
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(c.ctx, setupInstallTimeout)
			defer cancel()
			res, err := api.CodexInstall.Call(ctx, c.rt, api.CodexInstallParams{})
			return setupDoneMsg{res: res, err: err}
		}
	}
	ch := make(chan tea.Msg, 64)
	go func() {
		defer close(ch)
		ctx, cancel := context.WithTimeout(c.ctx, setupInstallTimeout)
		defer cancel()
		res, err := api.CodexInstall.CallEvents(ctx, pr, params, func(ev api.Event) {
			if ev.Type == api.EventCodexInstall && ev.Install != nil {
				select {
				case ch <- setupLineMsg{line: ev.Install.Line}:
				case <-c.ctx.Done():
				}
			}
		})
		select {
		case ch <- setupDoneMsg{res: res, err: err}:
		case <-c.ctx.Done():
		}
	}()
	return nextSetupMsg(ch)
}

func nextSetupMsg(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		if l, isLine := msg.(setupLineMsg); isLine {
			l.next = nextSetupMsg(ch)
			return l
		}
		return msg
	}
}

func (m setupLineMsg) apply(a *App) tea.Cmd {
	p := a.setup
	p.lines = append(p.lines, oneLine(m.line))
	if len(p.lines) > maxSetupLines {
		p.lines = p.lines[len(p.lines)-maxSetupLines:]
	}
	return m.next
}

func (m setupDoneMsg) apply(a *App) tea.Cmd {
	p := a.setup
	p.installing = false
	a.status.done(p.job)
	if m.err != nil {
		var me *model.Error
		if !errors.As(m.err, &me) {
			me = model.Errorf(model.CodeInternal, "try again", "%s", errText(m.err))
		}
		p.err = me
		a.status.set(levelError, "the Codex install failed: "+me.Message)
		if !p.open {
			p.show(true)
		}
		return nil
	}
	p.res = &m.res
	took := (time.Duration(m.res.DurationMs) * time.Millisecond).Round(time.Second)
	if m.res.StartError != nil {
		a.status.set(levelError, "Codex "+m.res.Version+" installed, but the App Server did not start: "+m.res.StartError.Message)
		if !p.open {
			p.show(true)
		}
		return p.check()
	}
	p.open = false
	a.status.set(levelOK, "Codex "+m.res.Version+" installed in "+took.String()+"; the App Server runs")
	return tea.Batch(p.check(), a.refreshAll())
}

func (p *setupPanel) ShortHelp() []key.Binding {
	km := p.c.keys
	b := []key.Binding{navHelp(km.List.Up, km.List.Down, "scroll")}
	if p.st.CanInstall && !p.installing && (p.res == nil || p.res.StartError == nil) {
		b = append(b, km.Setup.Install)
	}
	return append(b, km.Setup.Close, km.Global.Quit)
}
