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
	// At the keyboard too: a delegation's HARNESS_NOT_FOUND and DELEGATION_FAILED point here.
	registerOperatorForm(cmd)
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the harnesses of the running runtime",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMethod(&a, cmd, api.HarnessList, struct{}{}, nil)
		},
	})
	cmd.AddCommand(newHarnessInspectCmd(&a))
	return cmd
}

func newHarnessInspectCmd(a *agentCommand) *cobra.Command {
	var p api.HarnessInspectParams
	cmd := &cobra.Command{
		Use:   "inspect H [--cwd DIR] [--refresh true|false]",
		Short: "Show a harness's models, thinking options, defaults and capabilities",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return invalidArgs(cmd, "expects one harness id (see `codexhost harness list`)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Harness = args[0]
			return runMethod(a, cmd, api.HarnessInspect, p, nil)
		},
	}
	cmd.Flags().StringVar(&p.Cwd, "cwd", "", "the directory the answer is for")
	cmd.Flags().Var(&boolValue{&p.Refresh}, "refresh", "true: ask the App Server for its model list again (default false)")
	return cmd
}
