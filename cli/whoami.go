package cli

import (
	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

// newClientWhoamiCmd prints the caller the runtime authenticated: an external client learns
// its own name here (the name `--notify client:NAME` and `thread list --client` take).
func newClientWhoamiCmd() *cobra.Command {
	var a agentCommand
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Print who the runtime takes this caller for: runtime (an agent) or client and its name",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, c, err := a.dial(cmd)
			if err != nil {
				return err
			}
			defer c.Close()
			caller := c.Caller()
			return a.out.print(cmd.OutOrStdout(), api.WhoamiResult{Kind: caller.Kind, Client: caller.Client, Version: c.Version()})
		},
	}
	a.register(cmd)
	return cmd
}
