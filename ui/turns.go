package ui

import (
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/model"
)

// How turns show: their outcome in words for people (with the reason of a failure), and a
// running turn with a spinner and its elapsed time, animated by one ticker of the app.

// turnWords is a turn status for people (statusWord); nothing for an unknown one.
func turnWords(status string) string {
	if status == "" {
		return ""
	}
	return statusWord(status)
}

// outcomeLine is the line a turn that did not complete ends with; empty for the others.
func (c *common) outcomeLine(status, reason string) string {
	st := c.st
	switch status {
	case model.TurnInterrupted:
		text := "■ interrupted"
		if reason != "" {
			text += ": " + oneLine(reason)
		}
		return st.BadgeWaiting.Render(text)
	case model.TurnFailed:
		text := st.G.Danger + "✗ error"
		if reason != "" {
			text += ": " + oneLine(reason)
		}
		return st.BadgeError.Render(text)
	}
	return ""
}

// spinFrames turn once a second; the frame comes from the clock, so that every view of a
// running turn agrees and a test's fixed clock draws a fixed frame.
var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

const spinEvery = 100 * time.Millisecond

func (c *common) spinner() string {
	return spinFrames[int(c.now().UnixMilli()/spinEvery.Milliseconds())%len(spinFrames)]
}

// elapsed is how long since t: "42s", "3m05s", "1h02m".
func elapsed(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := max(now.Sub(t), 0).Truncate(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// liveTickMsg redraws running turns; the app keeps one ticker while any turn it shows runs.
type liveTickMsg struct{}

// liveTick keeps the ticker going while something runs. Ticks come each spinEvery, below
// what a terminal shows and well inside the renderer's frame cap.
func (a *App) liveTick() tea.Cmd {
	if a.liveTicking || !a.anyRunning() {
		return nil
	}
	a.liveTicking = true
	return tea.Tick(spinEvery, func(time.Time) tea.Msg { return liveTickMsg{} })
}

func (m liveTickMsg) apply(a *App) tea.Cmd {
	a.liveTicking = false
	return a.liveTick()
}

func (a *App) anyRunning() bool { return a.fleet.active > 0 || a.transcript.running() }

// withOutcome fills in what thread.read said of the thread's latest turn.
func (t *transcriptPane) withOutcome(e tEntry) tEntry {
	if lt := t.lastTurn; lt != nil && e.turn == lt.ID {
		e.turnStatus, e.turnError = lt.Status, lt.Error
		if lt.StartedAt != nil {
			e.started = *lt.StartedAt
		}
	}
	return e
}

// endTurn adds the outcome of the turn last belongs to, after its messages.
func (t *transcriptPane) endTurn(lines []string, last tEntry) []string {
	if last.turn == "" {
		return lines
	}
	if o := t.c.outcomeLine(last.turnStatus, last.turnError); o != "" {
		lines = append(lines, o, "")
	}
	return lines
}

// lastTurnAlone shows the latest turn when none of its messages is loaded (a turn cancelled
// or failed before any message): its outcome is still the thread's news.
func (t *transcriptPane) lastTurnAlone(lines []string, shown string) []string {
	lt := t.lastTurn
	if lt == nil || lt.ID == "" || lt.ID == shown || lt.Status == model.TurnCompleted {
		return lines
	}
	for _, e := range t.entries {
		if e.turn == lt.ID {
			return lines
		}
	}
	lines = append(lines, t.c.st.Muted.Render(rule("turn "+t.c.ids.short(lt.ID)+" · "+turnWords(lt.Status), max(t.w, 1))))
	if o := t.c.outcomeLine(lt.Status, lt.Error); o != "" {
		lines = append(lines, o, "")
	}
	return lines
}

// running reports the shown thread running a turn.
func (t *transcriptPane) running() bool { return t.has && t.ref.Status == model.ThreadActive }

// runningSince is when the shown thread's running turn started, when known.
func (t *transcriptPane) runningSince() time.Time {
	if lt := t.lastTurn; lt != nil && lt.Status == model.TurnInProgress && lt.StartedAt != nil {
		return *lt.StartedAt
	}
	for i := len(t.entries) - 1; i >= 0; i-- {
		if e := t.entries[i]; e.turnStatus == model.TurnInProgress {
			if !e.started.IsZero() {
				return e.started
			}
			return e.at
		}
	}
	return time.Time{}
}

// runningHead is the transcript header's part for a running turn: spinner and elapsed time.
func (t *transcriptPane) runningHead() string {
	if !t.running() {
		return ""
	}
	s := t.c.spinner() + " running"
	if since := t.runningSince(); !since.IsZero() {
		s += " " + elapsed(t.c.now(), since)
	}
	return t.c.st.BadgeActive.Render(s)
}
