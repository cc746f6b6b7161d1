package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// readClientEvents reads the operator client's event log: to its end at start (old
// notifications were already seen), then what is new each time the runtime says so.
func (a *App) readClientEvents(initial bool) tea.Cmd {
	if a.c.client == "" {
		return nil
	}
	if !initial {
		if !a.evReady || a.evFetching {
			a.evAgain = a.evFetching
			return nil
		}
	}
	a.evFetching = true
	c, after := a.c, a.evCursor
	return func() tea.Msg {
		msg := clientEventsMsg{initial: initial, cursor: after}
		for range 100 {
			res, err := call(c, api.ClientEvents, api.ClientEventsParams{After: msg.cursor, Limit: 100})
			if err != nil {
				msg.err = err
				return msg
			}
			if len(res.Events) == 0 {
				return msg
			}
			if !initial {
				msg.events = append(msg.events, res.Events...)
			}
			if res.NextCursor != "" {
				msg.cursor = res.NextCursor
			}
		}
		return msg
	}
}

func (m clientEventsMsg) apply(a *App) tea.Cmd {
	a.evFetching = false
	if m.err != nil {
		if !m.initial {
			a.status.set(levelError, "client events: "+errText(m.err))
		}
		return nil
	}
	a.evCursor, a.evReady = m.cursor, true
	if n := len(m.events); n > 0 {
		e := m.events[n-1]
		text := fmt.Sprintf("notified: %s %s", a.c.short(string(e.Thread)), oneLine(e.Result))
		if e.Reason != "" {
			text += " (" + oneLine(e.Reason) + ")"
		}
		if n > 1 {
			text += fmt.Sprintf(" (+%d more)", n-1)
		}
		a.status.set(levelOK, text)
	}
	if a.evAgain {
		a.evAgain = false
		return a.readClientEvents(false)
	}
	return nil
}

func (m eventMsg) apply(a *App) tea.Cmd {
	cmds := []tea.Cmd{a.broadcast(m)}
	if m.ev.Type == api.EventClientLog && m.ev.Thread == a.c.client {
		cmds = append(cmds, a.readClientEvents(false))
	}
	if m.ev.Type == api.EventApproval {
		cmds = append(cmds, a.loadApprovals())
	}
	return tea.Batch(cmds...)
}

func (m connStateMsg) apply(a *App) tea.Cmd {
	s := a.status
	if !m.connected {
		s.connected, s.connErr = false, ""
		if m.err != nil {
			s.connErr = errText(m.err)
		}
		a.lost = true
		return nil
	}
	s.connected, s.connErr, s.endpoint = true, "", m.endpoint
	if !a.lost {
		return nil
	}
	a.lost = false
	s.set(levelOK, "reconnected to the runtime")
	a.evReady = false
	return tea.Batch(a.refreshAll(), a.readClientEvents(true))
}

func (m statusMsg) apply(a *App) tea.Cmd { a.status.set(m.level, m.text); return nil }

func (m hostsHealthMsg) apply(a *App) tea.Cmd { a.status.hosts = m.hosts; return nil }

func (m threadSelectedMsg) apply(a *App) tea.Cmd {
	cmds := []tea.Cmd{a.transcript.Show(m.ref), a.lineage.Show(m.ref)}
	if m.focus {
		a.setFocus(paneTranscript)
	}
	return tea.Batch(cmds...)
}

func (m openThreadMsg) apply(a *App) tea.Cmd { return a.perform(openAction{id: m.id}) }

func (m openResolvedMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	var ref threadRef
	switch {
	case m.err == nil:
		ref = a.c.refFromInfo(*m.info)
	case model.IsCode(m.err, model.CodeThreadNotFound) && a.c.defaultHost != "":
		// Not a thread of this runtime: it may still be a session of the catalog.
		ref = threadRef{ID: m.id, Host: a.c.defaultHost, Harness: model.NativeHarness}
	default:
		a.status.set(levelError, "open "+a.c.short(m.id)+": "+errText(m.err))
		return nil
	}
	return threadSelectedMsg{ref: ref, focus: true}.apply(a)
}

func (m harnessesLoadedMsg) apply(a *App) tea.Cmd {
	var names []string
	for _, h := range m.res.Harnesses {
		names = append(names, h.Name)
	}
	e := ""
	if m.err != nil {
		e = errText(m.err)
	}
	a.form.SetChoices(m.seq, "harness", names, e)
	return nil
}

func (m archiveCheckedMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	ref := m.ref
	fresh := "as last listed"
	if m.info != nil {
		ref.Status, ref.Waiting = m.info.Status, m.info.WaitingOnApproval
		fresh = "just read"
	}
	lines := []string{
		fmt.Sprintf("Archive %s on %s? Status %s: %s.", a.c.name(ref), ref.Host, fresh, statusWords(ref.Status, ref.Waiting)),
		"Archiving closes the session for every Codex client. Codex cannot tell whether another client (Codex Desktop, a CLI, another runtime) still runs it: confirm only if none does.",
	}
	if ref.Status == model.ThreadActive {
		lines = append(lines, a.c.st.G.Danger+"It is running a turn now; the runtime will refuse to archive it.")
	}
	if m.err != nil {
		lines = append(lines, "Could not read it again: "+errText(m.err))
	}
	a.confirm.Show("Archive session?", lines, "archive", archiveAction{ref: ref}, true, true)
	return nil
}

func (m archiveDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	if m.err != nil {
		a.status.set(levelError, "archive "+a.c.name(m.ref)+": "+errText(m.err))
		return nil
	}
	a.status.set(levelOK, "archived "+a.c.name(m.ref)+" on "+m.res.Host)
	return a.broadcast(threadChangedMsg{id: m.ref.ID, archived: true})
}

// apply opens the supervised thread the runtime returned. It is a codexhost thread, read with
// the thread methods rather than through the catalog.
func (m continueDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	if m.err != nil {
		a.status.set(levelError, "continue "+a.c.name(m.ref)+": "+errText(m.err))
		return nil
	}
	t := m.res.Thread
	ref := threadRef{ID: t.ID, Title: clean(t.Title), Status: t.Status, Waiting: t.WaitingOnApproval, Cwd: clean(t.Cwd), Harness: t.Harness}
	if ref.Title == "" {
		ref.Title = m.ref.Title
	}
	if b := t.BranchOf; b != nil {
		ref.BranchHost, ref.BranchThread = clean(b.Host), clean(b.Thread)
	}
	var cmds []tea.Cmd
	if m.res.Existing {
		a.status.set(levelOK, fmt.Sprintf("opened supervised thread %s (%s) of %s", a.c.short(t.ID), m.res.State, a.c.name(m.ref)))
	} else {
		state := m.res.State
		if h := m.res.History; h != nil {
			state += fmt.Sprintf(", %d message(s) carried", h.Messages)
		}
		a.status.set(levelOK, fmt.Sprintf("new supervised thread %s (%s) of %s", a.c.short(t.ID), state, a.c.name(m.ref)))
		cmds = append(cmds, a.fleet.Update(threadChangedMsg{id: t.ID, created: true}))
	}
	cmds = append(cmds, threadSelectedMsg{ref: ref, focus: true}.apply(a))
	return tea.Batch(cmds...)
}

func (m cancelDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	if m.err != nil {
		a.status.set(levelError, "cancel "+a.c.name(m.ref)+": "+errText(m.err))
		return nil
	}
	a.status.set(levelOK, "cancelled turn "+a.c.short(m.res.TurnID)+" of "+a.c.name(m.ref))
	return a.broadcast(threadChangedMsg{id: m.ref.ID})
}

func (m sendDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	if m.err != nil {
		a.status.set(levelError, "send to "+a.c.name(m.ref)+": "+errText(m.err))
		return nil
	}
	a.status.set(levelOK, "sent to "+a.c.name(m.ref)+": turn "+a.c.short(m.res.TurnID))
	return a.broadcast(threadChangedMsg{id: m.ref.ID})
}

func (m delegateDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	if m.err != nil {
		a.status.set(levelError, "delegate: "+errText(m.err))
		return nil
	}
	t := m.res.Thread
	verb := "delegated"
	if m.res.Existing {
		verb = "already delegated"
	}
	a.status.set(levelOK, fmt.Sprintf("%s to %s: %s", verb, t.Harness, t.ID))
	return a.broadcast(threadChangedMsg{id: t.ID, created: true, parent: m.parent})
}

func (m watchDoneMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	if m.err != nil {
		a.status.set(levelError, "watch "+a.c.name(m.ref)+": "+errText(m.err))
		return nil
	}
	switch {
	case m.res.State == "alreadyTerminal":
		a.status.set(levelOK, fmt.Sprintf("%s has already stopped (%s); nothing to watch", a.c.name(m.ref), m.res.Status))
	case m.res.Watch != nil:
		a.status.set(levelOK, fmt.Sprintf("watching %s; %s is notified when it stops", a.c.name(m.ref), m.res.Watch.Notify))
	default:
		a.status.set(levelOK, "watching "+a.c.name(m.ref))
	}
	return a.broadcast(watchAddedMsg{})
}
