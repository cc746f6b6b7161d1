package cli

import (
	"fmt"
	"io"

	"github.com/codexhost/codexhost/runtime/api"
)

// linkNote says which codexhost thread drives a session and which source a branch
// continues (api.SessionLink), for people; "" when nothing links it. id is the session's own.
func linkNote(id string, l api.SessionLink) string {
	note := ""
	switch {
	case l.CodexhostThread == "":
	case l.CodexhostThread == id:
		note = "codexhost thread"
	default:
		note = "codexhost thread " + l.CodexhostThread
	}
	if l.BranchOf != nil {
		if note != "" {
			note += ", "
		}
		note += "branch of " + l.BranchOf.Thread + " on " + l.BranchOf.Host
	}
	if note == "" {
		return ""
	}
	return " [" + note + "]"
}

// printTranscriptLink is the line a transcript of a linked session starts with.
func printTranscriptLink(w io.Writer, res api.CatalogTranscriptResult) {
	if note := linkNote(res.Thread, res.SessionLink); note != "" {
		fmt.Fprintf(w, "linked:%s\n", note)
	}
}
