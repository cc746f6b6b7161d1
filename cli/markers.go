package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

func newThreadMarkersCmd(a *agentCommand) *cobra.Command {
	var asJSON, asText bool
	cmd := &cobra.Command{
		Use:   "markers T [--text]",
		Short: "List the marker blocks a thread wrote (the audit) and its polls and waits still running",
		Long: "List the marker blocks a thread wrote (the audit) and its polls and waits still running. " +
			"Like every agent-facing command it prints one JSON document (--format json|compact); --text prints it for people.",
		Args: exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			p := api.ThreadMarkersParams{Thread: args[0]}
			if !asText {
				return runMethod(a, cmd, api.ThreadMarkers, p, nil)
			}
			// connect, not dial: --operator holds for the text form too.
			ctx, c, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer c.Close()
			res, err := api.ThreadMarkers.Call(ctx, c, p)
			if err != nil {
				return err
			}
			writeHuman(cmd.OutOrStdout(), func(w io.Writer) { printMarkers(w, res) })
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", true, "print the result as JSON (the default)")
	hideDefaultJSON(cmd)
	cmd.Flags().BoolVar(&asText, "text", false, "print the audit for people instead of JSON")
	return cmd
}

// printMarkers renders the result for people: one line per block, then the running runs.
func printMarkers(w io.Writer, res api.ThreadMarkersResult) {
	fmt.Fprintf(w, "thread %s\n", res.Link)
	if c := res.Created; c != nil {
		fmt.Fprintf(w, "created by a marker block of codex://threads/%s (generation %d)\n", c.Parent, c.Generation)
	}
	if len(res.Audit) == 0 {
		fmt.Fprintln(w, "no marker blocks")
	}
	for _, a := range res.Audit {
		line := fmt.Sprintf("%s turn %s #%d %s: %s", a.DecidedAt.Format("2006-01-02 15:04:05"), a.Turn, a.Seq, a.Info, a.Decision)
		if a.Code != "" {
			line += " (" + a.Code + ")"
		}
		if a.Created != "" {
			line += " created " + a.Created.Link()
		}
		if len(a.Targets) > 0 {
			line += " targets " + strings.Join(a.Targets, ", ")
		}
		fmt.Fprintln(w, line)
	}
	for _, r := range res.Running {
		for _, p := range r.Pending {
			fmt.Fprintf(w, "running: turn %s #%d %s on %s until %s\n", r.Turn, p.Seq, p.Info, strings.Join(p.Targets, ", "), p.Deadline.Format("2006-01-02 15:04:05"))
		}
	}
}
