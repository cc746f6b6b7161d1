package ui

import (
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// Short ids. UUIDv7 ids begin with their creation time, so ids made close together share a
// long prefix; what tells them apart is their end. An id shows as its first 8 characters, an
// ellipsis and as much of its end as tells it apart from every other id the app has loaded
// (at least 2 characters): the same id reads the same in every pane, and `o` takes that form
// back.

// shortHead and minTail shape the short form: "019a2327…c7".
const (
	shortHead = 8
	minTail   = 2
)

// idIndex holds loaded ids, reversed and sorted, so that an id's nearest neighbours by their
// ends are found by binary search.
type idIndex struct {
	known   map[string]struct{}
	rev     []string // reversed known ids, sorted; rebuilt when dirty
	dirty   bool
	version int // counts changes, so views that cache short forms know when to redraw
}

// add records ids; empty ones are ignored.
func (x *idIndex) add(ids ...string) {
	for _, id := range ids {
		if len(id) <= shortHead+minTail+1 {
			continue // shown whole anyway
		}
		if x.known == nil {
			x.known = map[string]struct{}{}
		}
		if _, ok := x.known[id]; !ok {
			x.known[id] = struct{}{}
			x.dirty = true
		}
	}
}

func (x *idIndex) build() {
	if !x.dirty {
		return
	}
	x.rev = x.rev[:0]
	for id := range x.known {
		x.rev = append(x.rev, reverse(id))
	}
	slices.Sort(x.rev)
	x.dirty = false
	x.version++
}

// tail is how many end characters tell id apart from every other loaded id.
func (x *idIndex) tail(id string) int {
	x.build()
	r := reverse(id)
	i, _ := slices.BinarySearch(x.rev, r)
	n := 0
	for _, j := range []int{i - 1, i, i + 1} {
		if j >= 0 && j < len(x.rev) && x.rev[j] != r {
			n = max(n, commonPrefix(x.rev[j], r))
		}
	}
	return max(n+1, minTail)
}

// short is id's short form.
func (x *idIndex) short(id string) string {
	if len(id) <= shortHead+minTail+1 {
		return id
	}
	k := x.tail(id)
	if shortHead+k >= len(id) {
		return id
	}
	return id[:shortHead] + "…" + id[len(id)-k:]
}

// match finds the loaded ids a typed short form names: a whole id, "head…tail" as short
// shows it, or a bare end or beginning of at least 4 characters.
func (x *idIndex) match(s string) []string {
	s = strings.ToLower(strings.TrimSpace(s))
	head, tail, short := strings.Cut(s, "…")
	if !short {
		head, tail, short = strings.Cut(s, "...")
	}
	var out []string
	for id := range x.known {
		lid := strings.ToLower(id)
		switch {
		case lid == s:
			return []string{id}
		case short && strings.HasPrefix(lid, head) && strings.HasSuffix(lid, tail):
			out = append(out, id)
		case !short && len(s) >= 4 && (strings.HasSuffix(lid, s) || strings.HasPrefix(lid, s)):
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func (c *common) short(id string) string { return c.ids.short(id) }

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// resolveThread turns what was typed in `o` into a thread id: a whole id or link, a short
// form of a loaded id, or the title of a fleet row.
func (a *App) resolveThread(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", model.Errorf(model.CodeInvalidArgument, "type an id, a short id as shown, or a title", "no thread given")
	}
	if id, err := model.ParseThreadID(s); err == nil {
		return string(id), nil
	}
	ids := a.c.ids.match(s)
	if len(ids) == 0 {
		ids = a.fleet.titled(s)
	}
	switch len(ids) {
	case 0:
		return "", model.Errorf(model.CodeInvalidArgument, "paste the whole id or its codex://threads/ link", "%q is no id, short id or title of a loaded thread", s)
	case 1:
		return ids[0], nil
	}
	shown := make([]string, 0, 3)
	for _, id := range ids[:min(len(ids), 3)] {
		shown = append(shown, a.c.short(id))
	}
	return "", model.Errorf(model.CodeInvalidArgument, "type more of the id", "%q names %d threads (%s)", s, len(ids), strings.Join(shown, ", "))
}
