package table

import (
	"fmt"
	"time"
)

// Count is n with the noun in the right number: "1 session", "2 sessions", "0 sessions".
// plural is the plural form when adding "s" is wrong ("1 match", "2 matches").
func Count(n int, singular string, plural ...string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	if len(plural) > 0 {
		return fmt.Sprintf("%d %s", n, plural[0])
	}
	return fmt.Sprintf("%d %ss", n, singular)
}

// Ago is how long before now t was, as a person says it: "just now", "3 min ago", "5 h ago",
// "yesterday", "4 days ago", then the date. A time in the future (clocks of two machines)
// reads "just now" within a minute, else "in 3 min". A zero t is "-".
func Ago(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < 0 {
		if -d < time.Minute {
			return "just now"
		}
		return "in " + span(-d)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < 48*time.Hour && now.Add(-24*time.Hour).Format(time.DateOnly) == t.In(now.Location()).Format(time.DateOnly) && d >= 6*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return span(d) + " ago"
	}
	return t.In(now.Location()).Format(time.DateOnly)
}

// span is d in the largest unit that fits it, rounded down.
func span(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return Count(int(d/(24*time.Hour)), "day")
}
