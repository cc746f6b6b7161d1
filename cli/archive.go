package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func newArchiveCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.CatalogArchiveParams
	cmd := &cobra.Command{
		Use:   "archive T --confirm-no-other-runner [--host ID] [--json]",
		Short: "Archive an idle or stored native session of a local host",
		Long: "Archive a native Codex session of a local host. The thread is read again and archived only when it is " +
			"idle or stored (notLoaded), runs no turn here, is not open in another Codex process, and neither is any of " +
			"its unarchived descendants. Codex cannot say whether an unknown client still uses it: " +
			"--confirm-no-other-runner states that none does. Success is reported only after Codex accepted. " +
			"A thread a task-create block made loses its worktree (kept when it has uncommitted changes) and its " +
			"codexhost/marker-* branch when the branch has no commits of its own; the output says what went and what was kept.",
		Args: exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Refused before anything starts: nothing is read or changed without the confirmation.
			if !p.ConfirmNoOtherRunner {
				return model.Errorf(model.CodeInvalidArgument,
					"archive closes the thread for every Codex client; make sure no other client (Codex Desktop, a CLI, another runtime) runs it, then pass --confirm-no-other-runner",
					"archive needs --confirm-no-other-runner")
			}
			p.Thread = args[0]
			res, err := operatorCall(&o, cmd, api.CatalogArchive, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) {
				fmt.Fprintf(w, "archived %s on %s\n", res.Thread, res.Host)
				if c := res.MarkerWorktree; c != nil {
					printCleanup(w, *c, "removed", "deleted")
				}
			})
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&p.ConfirmNoOtherRunner, "confirm-no-other-runner", false, "confirm that no other Codex client runs this thread")
	cmd.Flags().StringVar(&p.Host, "host", "", "the host of the thread (default gateway:local)")
	return cmd
}
