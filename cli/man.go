package cli

import (
	"fmt"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
)

// newManCmd prints the man page generated from the command tree, so it cannot drift from the
// binary. Release builds ship its output.
func newManCmd(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "Print the codexhost man page (roff)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page, err := mcobra.NewManPage(1, root)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), page.Build(roff.NewDocument()))
			return err
		},
	}
}
