package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Quitting an app that runs the runtime itself stops the runtime, and with it every running
// turn (they end interrupted). So the app first asks the runtime which turns run and, when
// any do, asks before it quits. An app attached to a runtime of its own (codexhost serve)
// quits at once: its turns go on.

// quitAction quits the app.
type quitAction struct{ running int }

func (q quitAction) label(*common) string { return "quitting" }

type quitCheckedMsg struct {
	job     int
	running []model.ThreadInfo
	err     error
}

// quitPages bounds the thread.list pages read to count running turns.
const quitPages = 20

// quit asks the runtime for its running turns when quitting would stop them.
func (a *App) quit() tea.Cmd {
	if a.c.embedded == nil || !a.c.embedded() {
		return tea.Quit
	}
	if a.quitting {
		return nil
	}
	a.quitting = true
	job, tick := a.status.start("checking for running turns")
	c := a.c
	return tea.Batch(tick, func() tea.Msg {
		msg := quitCheckedMsg{job: job}
		p := api.ThreadListParams{AnyCwd: true, Limit: model.MaxPageLimit}
		for range quitPages {
			var res api.ThreadListResult
			if res, msg.err = call(c, api.ThreadList, p); msg.err != nil {
				return msg
			}
			for _, t := range res.Threads {
				if t.Status == model.ThreadActive {
					msg.running = append(msg.running, t)
				}
			}
			if res.NextCursor == "" {
				break
			}
			p.Cursor = res.NextCursor
		}
		return msg
	})
}

func (m quitCheckedMsg) apply(a *App) tea.Cmd {
	a.status.done(m.job)
	a.quitting = false
	if m.err == nil && len(m.running) == 0 {
		return tea.Quit
	}
	n := len(m.running)
	var lines []string
	if m.err != nil {
		lines = append(lines, "Could not ask the runtime which turns run: "+errText(m.err)+".",
			"This app runs the runtime itself: quitting stops it, and any turn still running ends as interrupted (runtime shut down during the turn).")
	} else {
		names := make([]string, 0, min(n, 3))
		for _, t := range m.running[:min(n, 3)] {
			names = append(names, a.c.name(a.c.refFromInfo(t)))
		}
		more := ""
		if n > 3 {
			more = fmt.Sprintf(" and %d more", n-3)
		}
		ends := "that turn ends"
		if n > 1 {
			ends = fmt.Sprintf("those %d turns end", n)
		}
		lines = append(lines,
			fmt.Sprintf("%s running in this app's runtime: %s%s.", plural(n, "turn is", "turns are"), strings.Join(names, ", "), more),
			fmt.Sprintf("This app runs the runtime itself: quitting stops it, and %s as interrupted (runtime shut down during the turn); the threads stay and take new messages.", ends))
	}
	lines = append(lines, "To keep turns running while no app is open, quit once they finish and start `codexhost serve` first next time: the app then attaches to it, and quitting the app leaves its turns running.")
	title := "Quit and interrupt running turns?"
	if m.err == nil {
		title = fmt.Sprintf("Quit and interrupt %s?", plural(n, "running turn", "running turns"))
	}
	a.confirm.Show(title, lines, "quit and interrupt", quitAction{running: n}, true, true)
	return nil
}

// plural is "1 thing" or "n things".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
