package cli

import (
	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// windowGiven refuses a watch window given as 0 or less: the runtime reads an absent window
// as the default (30 minutes), and a 0 typed on purpose would silently become that.
func windowGiven(cmd *cobra.Command, flag string, ms int64) error {
	if !cmd.Flags().Changed(flag) || ms > 0 {
		return nil
	}
	return model.Errorf(model.CodeInvalidArgument, "give --"+flag+" from 1 to 604800000 (7 days), or leave it out for 30 minutes",
		"--%s %d is not a window", flag, ms)
}

func newThreadWatchCmd(a *agentCommand) *cobra.Command {
	var p api.ThreadWatchParams
	cmd := &cobra.Command{
		Use:   "watch T [--notify T|client:NAME] [--timeout-ms N] [--on stop|approval]",
		Short: "Notify a thread (or your client) once when T stops, or with --on approval when it needs approval; returns at once",
		Args:  exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := windowGiven(cmd, "timeout-ms", p.TimeoutMs); err != nil {
				return err
			}
			p.Thread = args[0]
			p.Caller = callerHint(cmd.Context(), "")
			return runMethod(a, cmd, api.ThreadWatch, p, nil)
		},
	}
	cmd.Flags().StringVar(&p.Notify, "notify", "", "who is notified: a thread id or link, or client:NAME (default: your own thread, the one your CODEXHOST_RUNTIME_TOKEN or CODEXHOST_THREAD_ID names, else the calling client)")
	cmd.Flags().Int64Var(&p.TimeoutMs, "timeout-ms", 0, "observation window in milliseconds (default 30 minutes; at most 7 days); then the result is timedOut. A watch of the same thread for the same recipient is returned as it is (existing: true), its window unchanged")
	cmd.Flags().StringVar(&p.On, "on", "", "what notifies: stop (the default), or approval: the first approval of T that waits for an answer (result needsApproval, with its id)")
	return cmd
}

func newThreadWatchesCmd(a *agentCommand) *cobra.Command {
	return &cobra.Command{
		Use:   "watches",
		Short: "List watching and pending watches and the latest undeliverable ones",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMethod(a, cmd, api.ThreadWatches, struct{}{}, nil)
		},
	}
}
