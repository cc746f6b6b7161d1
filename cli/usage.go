package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/runtime/api"
)

func newUsageCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var tf tableFlags
	var p api.UsageSummaryParams
	cmd := &cobra.Command{
		Use:   "usage [--since D] [--by thread|tree|principal] [--json]",
		Short: "Sum the token usage of threads, delegation trees or principals per day",
		Long: "Sum the tokens the turns of codexhost's threads used (input, cached input, output, reasoning), since a UTC day " +
			"(--since 2026-01-31) or a span back from now (--since 7d), by thread, by delegation tree (its root thread) " +
			"or by principal and day. Costs appear only for models priced in config.toml's [usage.prices], and are estimates. " +
			"Threads whose harness reports no usage are not counted. Inside a harness process only the usage of the " +
			"thread's own principal is summed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			res, err := operatorCall(&o, cmd, api.UsageSummary, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { tf.show(cmd, w, opview.Usage(res), "") })
		},
	}
	cmd.Flags().StringVar(&p.Since, "since", "", "count turns from this UTC day (2006-01-02) or span back (36h, 7d)")
	cmd.Flags().StringVar(&p.By, "by", api.UsageByThread, "group by thread, tree or principal (per day)")
	o.register(cmd)
	tf.register(cmd, opview.UsageColumns)
	return cmd
}
