package keymap

import (
	"fmt"
	"sort"
	"strings"
)

// unknownAction is the problem of a [keys] entry naming no action: the nearest names when it
// looks misspelt, else the actions of its scope, else the scopes there are.
func unknownAction(name string, acts []Action) string {
	if near := nearest(name, actionNames(acts)); len(near) > 0 {
		return "unknown action; did you mean " + quoteJoin(near) + "?"
	}
	scope, _, _ := strings.Cut(name, ".")
	var inScope []string
	scopes := map[string]bool{}
	for _, a := range acts {
		scopes[a.Scope] = true
		if a.Scope == scope {
			inScope = append(inScope, a.Name)
		}
	}
	if len(inScope) > 0 {
		return fmt.Sprintf("unknown action; the actions of %s are %s", scope, quoteJoin(inScope))
	}
	names := make([]string, 0, len(scopes))
	for s := range scopes {
		names = append(names, s)
	}
	sort.Strings(names)
	return fmt.Sprintf("unknown action; names are scope.action, the scopes %s (the help view, ?, lists every action)", strings.Join(names, ", "))
}

// nearest are the names within a small edit distance of name (case-insensitive), closest
// first: a slip of one or two characters, or a third in a long name.
func nearest(name string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	var out []cand
	limit := 2
	if len(name) > 12 {
		limit = 3
	}
	for _, n := range names {
		if d := distance(strings.ToLower(name), strings.ToLower(n)); d <= limit {
			out = append(out, cand{n, d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].d < out[j].d })
	names = names[:0:0]
	for _, c := range out {
		if c.d == out[0].d {
			names = append(names, c.name)
		}
	}
	return names
}

// distance is the Levenshtein distance of a and b, by runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) > 1 {
		return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
	}
	return strings.Join(q, "")
}
