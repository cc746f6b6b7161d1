package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// What the detail view shows: the focused pane's selection in full (detailer), then the
// status bar's whole last line and the connection's error.

// detailer is a pane with something to show in full.
type detailer interface{ details() []detailSection }

// add appends a field when it has a value.
func (s *detailSection) add(label, value string) {
	if strings.TrimSpace(value) != "" {
		s.fields = append(s.fields, detailField{label, value})
	}
}

func (c *common) when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(c.loc).Format("2006-01-02 15:04:05 MST") + " (" + relative(c.now(), t) + ")"
}

// relative says how far t is from now either way: "in 29m", "5m ago", "now" within a minute.
// A deadline ahead is not "now".
func relative(now, t time.Time) string {
	d := t.Sub(now)
	switch {
	case d > -time.Minute && d < time.Minute:
		return "now"
	case d > 0:
		return "in " + age(now, now.Add(-d))
	}
	return age(now, t) + " ago"
}

// threadSection is a thread in full: the status in people's words with the raw state.
func (c *common) threadSection(title string, r threadRef) detailSection {
	s := detailSection{title: title}
	s.add("title", r.Title)
	s.add("id", r.ID)
	if _, err := model.ParseThreadID(r.ID); err == nil {
		s.add("link", model.ThreadID(r.ID).Link())
	}
	st := rawStatus(r.Status)
	if r.Waiting {
		st += ", waiting on approval"
	}
	s.add("status", st)
	s.add("host", r.Host)
	s.add("harness", r.Harness)
	s.add("cwd", r.Cwd)
	return s
}

// statusDetails is the status bar's text in full.
func (a *App) statusDetails() []detailSection {
	s := detailSection{title: "Status bar"}
	if !a.status.connected && a.status.connErr != "" {
		s.add("runtime unreachable", a.status.connErr)
	}
	if a.status.msg != "" {
		label := "last message"
		if a.status.lvl == levelError {
			label = "last error"
		}
		s.add(label, a.status.msg)
	}
	for _, h := range a.status.hosts {
		if h.Health.State == api.CatalogHealthError {
			s.add("host "+h.ID, h.Health.Code+": "+h.Health.Message)
		}
	}
	if len(s.fields) == 0 {
		return nil
	}
	return []detailSection{s}
}

func (f *fleetPane) details() []detailSection {
	if f.cursor < 0 || f.cursor >= len(f.lines) {
		return nil
	}
	l := f.lines[f.cursor]
	g := f.groups[l.g]
	var out []detailSection
	if l.kind == lineRow {
		r := g.rows[l.r]
		s := f.c.threadSection("Session", r.ref)
		s.add("branch", r.branch)
		s.add("updated", f.c.when(r.updated))
		out = append(out, s)
	}
	h := detailSection{title: "Host " + g.id}
	h.add("health", g.health)
	h.add("error", g.errLine)
	if len(h.fields) > 0 {
		out = append(out, h)
	}
	return out
}

func (t *transcriptPane) details() []detailSection {
	if !t.has {
		return nil
	}
	s := t.c.threadSection("Thread", t.ref)
	s.add("error", t.err)
	out := []detailSection{s}
	if lt := t.lastTurn; lt != nil {
		ts := detailSection{title: "Latest turn"}
		ts.add("id", lt.ID)
		ts.add("status", rawStatus(lt.Status))
		ts.add("reason", lt.Error)
		if lt.StartedAt != nil {
			ts.add("started", t.c.when(*lt.StartedAt))
		}
		if lt.CompletedAt != nil {
			ts.add("ended", t.c.when(*lt.CompletedAt))
		}
		out = append(out, ts)
	}
	return out
}

func (l *lineagePane) details() []detailSection {
	if l.cursor < 0 || l.cursor >= len(l.vis) {
		return nil
	}
	n := l.nodes[l.vis[l.cursor].id]
	if n == nil {
		return nil
	}
	s := l.c.threadSection("Thread", l.nodeRef(n))
	s.add("parent", n.Parent)
	s.add("children", strconv.Itoa(len(n.Children)))
	s.add("refs", strings.Join(n.Thread.Refs, "\n"))
	s.add("unreadable", n.Err)
	return []detailSection{s}
}

func (p *listPane[T]) details() []detailSection {
	it, ok := p.current()
	if !ok {
		if p.err != "" {
			return []detailSection{{title: p.spec.title, fields: []detailField{{"error", p.err}}}}
		}
		return nil
	}
	switch v := any(it).(type) {
	case model.Watch:
		return []detailSection{watchSection(p.c, v)}
	case api.TaskInfo:
		return []detailSection{taskSection(p.c, v)}
	}
	return nil
}

func watchSection(c *common, w model.Watch) detailSection {
	s := detailSection{title: "Watch " + w.ID}
	s.add("thread", string(w.Thread))
	s.add("notify", w.Notify)
	s.add("state", w.State)
	s.add("result", w.Result)
	s.add("reason", w.Reason)
	if w.Attempts > 0 {
		s.add("attempts", strconv.Itoa(w.Attempts))
	}
	s.add("next attempt", c.when(w.NextAttempt))
	s.add("registered", c.when(w.RegisteredAt))
	s.add("deadline", c.when(w.Deadline))
	s.add("delivered", c.when(w.DeliveredAt))
	s.add("updated", c.when(w.UpdatedAt))
	return s
}

func taskSection(c *common, t api.TaskInfo) detailSection {
	s := detailSection{title: "Task " + t.TaskID}
	s.add("status", t.Status)
	s.add("risk", t.RiskLevel)
	s.add("operations", strings.Join(t.Operations, ", "))
	s.add("root", t.Root)
	s.add("sandbox", t.Sandbox)
	if t.Network {
		s.add("network", "yes")
	}
	s.add("reason", t.Reason)
	s.add("handoff", t.HandoffID)
	s.add("started by", t.StartedBy)
	s.add("confirmed by", t.ConfirmedBy)
	s.add("cancelled by", t.CancelledBy)
	s.add("started", c.when(t.StartedAt))
	s.add("ended", c.when(t.EndedAt))
	return s
}
