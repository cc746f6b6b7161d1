package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/runtime/api"
)

func newHostsCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var tf tableFlags
	cmd := &cobra.Command{
		Use:   "hosts [--json]",
		Short: "List the catalog's hosts, their capabilities and health",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			res, err := operatorCall(&o, cmd, api.CatalogHosts, struct{}{})
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { tf.show(cmd, w, opview.Hosts(res.Hosts), "") })
		},
	}
	o.register(cmd)
	tf.register(cmd, opview.HostColumns)
	return cmd
}
