package model

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SinceDay reads the --since of a usage summary: a UTC day (2006-01-02), or a span back from
// now in hours or days (36h, 7d), which counts from the start of the day it reaches. It
// returns the first day counted; "" counts every turn.
func SinceDay(since string, now time.Time) (string, error) {
	since = strings.TrimSpace(since)
	if since == "" {
		return "", nil
	}
	if d, err := time.Parse(time.DateOnly, since); err == nil {
		return d.Format(time.DateOnly), nil
	}
	unit := since[len(since)-1]
	n, err := strconv.Atoi(since[:len(since)-1])
	if err == nil && n >= 0 && n <= 100000 && (unit == 'd' || unit == 'h') {
		span := time.Duration(n) * time.Hour
		if unit == 'd' {
			span *= 24
		}
		return Day(now.Add(-span)), nil
	}
	return "", Errorf(CodeInvalidArgument, "use a day such as 2026-01-31, or a span such as 36h or 7d", "bad --since %q", since)
}

// UsageGroup is the turns of one row of a usage summary.
type UsageGroup struct {
	Thread, Principal, Day string
	Turns                  []TurnUsage
}

// GroupTurns groups turns by key (turns whose key is "" are dropped), in a stable order:
// the largest total first, ties by key.
func GroupTurns(turns []TurnUsage, key func(TurnUsage) UsageGroup) []UsageGroup {
	type groupKey struct{ thread, principal, day string }
	index := map[groupKey]int{}
	var groups []UsageGroup
	for _, t := range turns {
		k := key(t)
		if k.Thread == "" && k.Principal == "" {
			continue
		}
		i, ok := index[groupKey{k.Thread, k.Principal, k.Day}]
		if !ok {
			i = len(groups)
			index[groupKey{k.Thread, k.Principal, k.Day}] = i
			groups = append(groups, k)
		}
		groups[i].Turns = append(groups[i].Turns, t)
	}
	total := func(g UsageGroup) (n int64) {
		for _, t := range g.Turns {
			n += t.Tokens.Total
		}
		return n
	}
	slices.SortStableFunc(groups, func(a, b UsageGroup) int {
		if a.Day != "" || b.Day != "" { // per principal and day: in order, not by size
			return cmp.Or(cmp.Compare(a.Principal, b.Principal), cmp.Compare(a.Day, b.Day))
		}
		return cmp.Or(cmp.Compare(total(b), total(a)), cmp.Compare(a.Thread, b.Thread), cmp.Compare(a.Principal, b.Principal))
	})
	return groups
}

// Threads counts the distinct threads of a group.
func (g UsageGroup) Threads() int {
	seen := map[ThreadID]bool{}
	for _, t := range g.Turns {
		seen[t.Thread] = true
	}
	return len(seen)
}
