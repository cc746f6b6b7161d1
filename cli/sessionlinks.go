package cli

import (
	"fmt"
	"io"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/runtime/api"
)

// printTranscriptLink is the line a transcript of a linked session starts with.
func printTranscriptLink(w io.Writer, res api.CatalogTranscriptResult) {
	if note := opview.LinkNote(res.Thread, res.SessionLink); note != "" {
		fmt.Fprintf(w, "linked:%s\n", note)
	}
}
