package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

// followPoll re-reads the log if no event arrives for this long (a dropped event stream).
const followPoll = 30 * time.Second

func newClientEventsCmd() *cobra.Command {
	var a agentCommand
	var after string
	var follow bool
	cmd := &cobra.Command{
		Use:   "events [--follow] [--after CURSOR]",
		Short: "Print this client's durable event log as JSON lines (watch notifications)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			c, err := a.conn.connectAgent(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			var changes <-chan api.Event
			if follow {
				if changes, err = c.Events(ctx); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			for {
				var res api.ClientEventsResult
				if err := c.Call(ctx, api.MethodClientEvents, api.ClientEventsParams{After: after, Limit: 100}, &res); err != nil {
					return err
				}
				for _, ev := range res.Events {
					b, _ := json.Marshal(ev)
					fmt.Fprintln(out, string(b))
				}
				after = res.NextCursor
				if len(res.Events) == 100 {
					continue
				}
				if !follow {
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case _, ok := <-changes:
					if !ok {
						return fmt.Errorf("event stream closed; resume with --after %s", after)
					}
				case <-time.After(followPoll):
				}
			}
		},
	}
	a.conn.register(cmd)
	cmd.Flags().StringVar(&after, "after", "", "print only events after this cursor")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new events as they arrive")
	return cmd
}
