package model

import (
	"fmt"
	"unicode/utf8"
)

// maxEchoRunes bounds how much of a rejected input an error message repeats: enough to
// recognise it, never so much that a huge argument floods stderr or a log line.
const maxEchoRunes = 80

// echo quotes s for an error message, cut to maxEchoRunes with the full length noted.
func echo(s string) string {
	n := 0
	for i := range s {
		if n == maxEchoRunes {
			return fmt.Sprintf("%q… (%d characters)", s[:i], utf8.RuneCountInString(s))
		}
		n++
	}
	return fmt.Sprintf("%q", s)
}
