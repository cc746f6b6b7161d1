package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/codexhost/codexhost/runtime/api"
)

type job struct {
	id    int
	label string
}

// statusBar shows the runtime endpoint, the hosts' health, what is running and the latest
// result or error.
type statusBar struct {
	c       *common
	spin    spinner.Model
	ticking bool
	jobs    []job
	nextJob int

	endpoint  string
	connected bool
	connErr   string
	hosts     []api.CatalogHost

	msg string
	lvl level

	running int  // threads of the fleet running a turn
	zoomed  bool // the focused pane has the whole screen
	// awaiting and undeliverable need the person (attention.go).
	awaiting, undeliverable int
	approvals               int // approval requests waiting for an answer (approvals.go)
}

func newStatusBar(c *common, endpoint string) *statusBar {
	sp := spinner.New(spinner.WithSpinner(spinner.MiniDot))
	sp.Style = c.st.Accent
	return &statusBar{c: c, spin: sp, endpoint: endpoint, connected: endpoint != ""}
}

// start records a running action and keeps the spinner turning while any runs.
func (s *statusBar) start(label string) (int, tea.Cmd) {
	s.nextJob++
	s.jobs = append(s.jobs, job{id: s.nextJob, label: label})
	if s.ticking {
		return s.nextJob, nil
	}
	s.ticking = true
	return s.nextJob, s.spin.Tick
}

func (s *statusBar) done(id int) {
	for i, j := range s.jobs {
		if j.id == id {
			s.jobs = append(s.jobs[:i], s.jobs[i+1:]...)
			return
		}
	}
}

func (s *statusBar) set(l level, text string) { s.msg, s.lvl = oneLine(text), l }

func (s *statusBar) Update(msg spinner.TickMsg) tea.Cmd {
	if len(s.jobs) == 0 {
		s.ticking = false
		return nil
	}
	var cmd tea.Cmd
	s.spin, cmd = s.spin.Update(msg)
	return cmd
}

// View puts what matters most first, since the line is cut at the terminal's width: a lost
// connection, what runs, the latest result, then the endpoint and the hosts' health.
func (s *statusBar) View(w int) string {
	st := s.c.st
	bar := st.StatusBar
	var parts []string
	if !s.connected {
		text := "runtime unreachable"
		if s.connErr != "" {
			text += ": " + s.connErr
		}
		parts = append(parts, st.StatusError.Render(st.G.Danger+text))
	}
	parts = append(parts, s.attentionParts()...)
	if s.zoomed {
		parts = append(parts, st.Accent.Render("zoom"))
	}
	if s.running > 0 {
		parts = append(parts, st.BadgeActive.Render(s.c.spinner()+" "+plural(s.running, "turn running", "turns running")))
	}
	if len(s.jobs) > 0 {
		labels := make([]string, len(s.jobs))
		for i, j := range s.jobs {
			labels[i] = j.label
		}
		parts = append(parts, s.spin.View()+bar.Render(" "+strings.Join(labels, ", ")+"…"))
	}
	if s.msg != "" {
		switch s.lvl {
		case levelError:
			parts = append(parts, st.StatusError.Render(st.G.Danger+s.msg))
		case levelOK:
			parts = append(parts, st.StatusOK.Render(s.msg))
		default:
			parts = append(parts, bar.Render(s.msg))
		}
	}
	if s.connected {
		parts = append(parts, bar.Render(st.OK.Render("●")+bar.Render(" "+tail(s.endpoint, 40))))
	}
	for _, h := range s.hosts {
		mark := st.OK.Render("✓")
		switch h.Health.State {
		case api.CatalogHealthError:
			mark = st.Danger.Render("✗")
		case api.CatalogHealthUnknown:
			mark = st.Muted.Render("?")
		}
		parts = append(parts, bar.Render(h.ID+" ")+mark)
	}
	line := strings.Join(parts, bar.Render(" │ "))
	return bar.Render(pad(line, w))
}
