package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

func newHostsCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	cmd := &cobra.Command{
		Use:   "hosts [--json]",
		Short: "List the catalog's hosts, their capabilities and health",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var res api.CatalogHostsResult
			if err := o.call(cmd, api.MethodCatalogHosts, struct{}{}, &res); err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printHosts(w, res) })
		},
	}
	o.register(cmd)
	return cmd
}

func printHosts(w io.Writer, res api.CatalogHostsResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tKIND\tCAPABILITIES\tHEALTH")
	for _, h := range res.Hosts {
		id := h.ID
		if h.Default {
			id += " (default)"
		}
		health := h.Health.State
		if h.Health.State == api.CatalogHealthError {
			health = h.Health.Code + ": " + h.Health.Message
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, h.Kind, strings.Join(h.Capabilities, ","), health)
	}
	_ = tw.Flush()
}

// shortTime renders a time for the human tables.
func shortTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}
