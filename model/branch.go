package model

import "strings"

// BranchSource names the native session a continued thread branches from: its host and its
// thread id, metadata only (never its title or content).
type BranchSource struct {
	Host   string `json:"host" doc:"the catalog host of the source session"`
	Thread string `json:"thread" doc:"the source session's thread id"`
}

// branchMark ends the title a branch takes from its source.
const branchMark = " (branch)"

// BranchTitle is the title of a branch that has none of its own: its source's, marked as a
// branch. A source without a title gives none.
func BranchTitle(source string) string {
	source = strings.TrimSpace(source)
	if source == "" || strings.HasSuffix(source, branchMark) {
		return source
	}
	return source + branchMark
}
