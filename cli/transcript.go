package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func newTranscriptCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.CatalogTranscriptParams
	cmd := &cobra.Command{
		Use:   "transcript T [--host ID] [--cursor C] [--json]",
		Short: "Read a page of a native session's turns (newest page first, oldest first within it)",
		Long: "Read one page of at most 20 turns of a native Codex session: the newest page without --cursor, " +
			"else the page an olderCursor or newerCursor of an earlier call leads to. Each page lists its turns " +
			"oldest first with their user and assistant messages. The thread is neither loaded nor changed. T may also " +
			"be the id `codexhost continue` printed: the session that supervised thread drives is read.",
		Args: exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Thread = args[0]
			res, err := operatorCall(&o, cmd, api.CatalogTranscript, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printTranscript(w, res) })
		},
	}
	o.register(cmd)
	cmd.Flags().StringVar(&p.Host, "host", "", "the host of the thread (default gateway:local)")
	cmd.Flags().StringVar(&p.Cursor, "cursor", "", "an olderCursor or newerCursor of an earlier call")
	return cmd
}

func printTranscript(w io.Writer, res api.CatalogTranscriptResult) {
	fmt.Fprintf(w, "thread %s on %s: %s, oldest first\n", res.Thread, res.Host, table.Count(len(res.Turns), "turn"))
	printTranscriptLink(w, res)
	for _, t := range res.Turns {
		when := "-"
		if t.StartedAt != nil {
			when = table.Ago(*t.StartedAt, time.Now())
		}
		fmt.Fprintf(w, "\n-- turn %s  %s  %s\n", t.ID, model.StatusWord(t.Status), when)
		for _, m := range t.Messages {
			fmt.Fprintf(w, "%s: %s\n", m.Role, strings.ReplaceAll(m.Text, "\n", "\n  "))
		}
		for _, a := range t.Approvals {
			fmt.Fprintln(w, opview.TranscriptLine(a, time.Local))
		}
	}
	if res.OlderCursor != "" {
		fmt.Fprintf(w, "\nolder: codexhost transcript %s --host %s --cursor %s\n", res.Thread, res.Host, res.OlderCursor)
	}
	if res.NewerCursor != "" {
		fmt.Fprintf(w, "newer: codexhost transcript %s --host %s --cursor %s\n", res.Thread, res.Host, res.NewerCursor)
	}
}
