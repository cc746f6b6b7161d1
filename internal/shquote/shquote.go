// Package shquote quotes words for a POSIX shell, so that a command printed for an agent or a
// person runs as printed when pasted, whatever its paths hold (spaces, quotes, $).
package shquote

import "strings"

// Quote returns s as one POSIX shell word: unchanged when it holds only characters no shell
// treats specially, else in single quotes, each ' inside closed, escaped and reopened.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:@,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words ...string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}
