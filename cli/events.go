package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

// followPoll re-reads the log if no event arrives for this long (a dropped event stream).
const followPoll = 30 * time.Second

// eventsPage is the page size of client.events reads.
const eventsPage = 100

func newClientEventsCmd() *cobra.Command {
	var a agentCommand
	var after string
	var follow bool
	var timeoutMs int64
	cmd := &cobra.Command{
		Use:   "events [--follow] [--after CURSOR] [--timeout-ms N]",
		Short: "Print this client's durable event log as JSON lines (watch notifications)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, c, err := a.dial(cmd)
			if err != nil {
				return err
			}
			defer c.Close()
			out := cmd.OutOrStdout()
			if cmd.Flags().Changed("timeout-ms") {
				return boundedEvents(ctx, c, out, after, timeoutMs)
			}
			return followEvents(ctx, c, out, after, follow)
		},
	}
	a.conn.register(cmd)
	cmd.Flags().StringVar(&after, "after", "", "print only events after this cursor")
	cmd.Flags().BoolVar(&follow, "follow", false, "keep printing new events as they arrive")
	cmd.Flags().Int64Var(&timeoutMs, "timeout-ms", 0, "with --follow: return once entries arrived, or after this many milliseconds with none (at most 3600000)")
	return cmd
}

// printEvents writes one JSON line per entry.
func printEvents(out io.Writer, res api.ClientEventsResult) {
	for _, ev := range res.Events {
		b, _ := json.Marshal(ev)
		fmt.Fprintln(out, string(b))
	}
}

// boundedEvents prints what follows the cursor, waiting up to timeoutMs for a first entry:
// a client waits for its next notification without polling, and always gets its turn back.
func boundedEvents(ctx context.Context, c *api.Client, out io.Writer, after string, timeoutMs int64) error {
	wait := timeoutMs
	for {
		res, err := api.ClientEvents.Call(ctx, c, api.ClientEventsParams{After: after, Limit: eventsPage, WaitMs: wait})
		if err != nil {
			return err
		}
		printEvents(out, res)
		if len(res.Events) < eventsPage {
			return nil
		}
		after, wait = res.NextCursor, 0
	}
}

// followEvents prints the log after the cursor and, with follow, every new entry until the
// command is stopped.
func followEvents(ctx context.Context, c *api.Client, out io.Writer, after string, follow bool) error {
	var changes <-chan api.Event
	if follow {
		var err error
		if changes, err = c.Events(ctx); err != nil {
			return err
		}
	}
	for {
		res, err := api.ClientEvents.Call(ctx, c, api.ClientEventsParams{After: after, Limit: eventsPage})
		if err != nil {
			return err
		}
		printEvents(out, res)
		after = res.NextCursor
		if len(res.Events) == eventsPage {
			continue
		}
		if !follow {
			return nil
		}
		poll := time.After(followPoll)
	wake:
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-changes:
			if !ok {
				return fmt.Errorf("event stream closed; resume with --after %s", after)
			}
			if ev.Type == api.EventThreadDelta {
				goto wake // streamed text never adds to the log: no read per fragment
			}
		case <-poll:
		}
	}
}
