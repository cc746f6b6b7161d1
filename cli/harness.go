package cli

import (
	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

func newHarnessCmd() *cobra.Command {
	var a agentCommand
	cmd := &cobra.Command{
		Use:   "harness",
		Short: "Inspect the runtime's harnesses (agent-facing)",
		Args:  cobra.NoArgs,
	}
	a.register(cmd)
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the harnesses of the running runtime",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var res api.HarnessListResult
			return a.run(cmd, api.MethodHarnessList, struct{}{}, &res)
		},
	})
	return cmd
}
