package ui

// The fleet's status filter: `status:running`, `status:stored` or `status:error` in the
// search line keeps the rows in that state; the rest of the line searches titles as before.

import (
	"strings"

	"github.com/codexhost/codexhost/model"
)

// Status filter words, as people say them.
const (
	filterRunning = "running"
	filterStored  = "stored"
	filterError   = "error"
	statusPrefix  = "status:"
)

var statusFilters = []string{filterRunning, filterStored, filterError}

// fleetQuery is a search line taken apart: the title text the catalog searches, and the
// status the rows must be in ("" for any). bad is a status word that names none of them.
type fleetQuery struct {
	title, status, bad string
}

// parseFleetQuery takes the status: word out of a search line. A unique prefix of a status
// word names it (status:run); the last status: word counts.
func parseFleetQuery(s string) fleetQuery {
	s = strings.TrimSpace(s)
	if !strings.Contains(strings.ToLower(s), statusPrefix) {
		return fleetQuery{title: s}
	}
	var q fleetQuery
	var rest []string
	for _, w := range strings.Fields(s) {
		v, ok := cutPrefixFold(w, statusPrefix)
		if !ok {
			rest = append(rest, w)
			continue
		}
		q.status, q.bad = statusFilterNamed(v), ""
		if q.status == "" {
			q.bad = v
		}
	}
	q.title = strings.Join(rest, " ")
	return q
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// statusFilterNamed is the status filter v names (a unique prefix will do), or "".
func statusFilterNamed(v string) string {
	v = strings.ToLower(v)
	if v == "" {
		return ""
	}
	found := ""
	for _, w := range statusFilters {
		if strings.HasPrefix(w, v) {
			if found != "" {
				return ""
			}
			found = w
		}
	}
	return found
}

// statusMatches reports whether a row is in the state a filter names: running is a turn
// running (waiting on approval included), stored is at rest (idle, or stored and loaded
// nowhere here), error is a thread the App Server reports broken, or one whose latest turn failed.
func statusMatches(r threadRef, status string) bool {
	switch status {
	case filterRunning:
		return r.Status == model.ThreadActive
	case filterStored:
		return r.Status == model.ThreadIdle || r.Status == model.ThreadNotLoaded
	case filterError:
		return r.Status == model.ThreadSystemError || r.Status == "error" || (r.Failed && r.Status != model.ThreadActive)
	}
	return true
}

// searchText is the title part of the applied search, which the catalog searches.
func (f *fleetPane) searchText() string { return parseFleetQuery(f.query).title }

// filterTitle is the pane title's count: the rows shown, and of how many when a status
// filter or a bad status word hides some.
func (f *fleetPane) filterTitle() string {
	q := parseFleetQuery(f.filter())
	t := f.countText()
	switch {
	case q.status != "":
		t += " of " + itoa(f.titleRows) + " · " + q.status
	case q.bad != "":
		t += " of " + itoa(f.titleRows) + " · no status " + truncate(oneLine(q.bad), 12) + " (running, stored, error)"
	}
	if q.title != "" {
		t += " · search " + truncate(oneLine(q.title), 20)
	}
	return t
}
