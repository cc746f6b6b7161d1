package cli

import (
	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

func newThreadCmd() *cobra.Command {
	var a agentCommand
	cmd := &cobra.Command{
		Use:   "thread",
		Short: "Read, wait for, list, message and cancel threads (agent-facing)",
		Args:  cobra.NoArgs,
	}
	a.register(cmd)
	registerOperatorForm(cmd)
	cmd.AddCommand(newThreadReadCmd(&a), newThreadWaitCmd(&a), newThreadListCmd(&a), newThreadSendCmd(&a), newThreadCancelCmd(&a), newThreadWatchCmd(&a), newThreadWatchesCmd(&a), newThreadMarkersCmd(&a))
	return cmd
}

func readFlags(cmd *cobra.Command, p *api.ThreadReadParams) {
	f := cmd.Flags()
	f.StringVar(&p.View, "view", "result", "result (outcome of the latest turn) or messages (paged, oldest first)")
	f.IntVar(&p.Limit, "limit", 25, "messages per page, at most 100")
	f.StringVar(&p.Cursor, "cursor", "", "nextCursor of the previous page (older messages)")
}

func newThreadReadCmd(a *agentCommand) *cobra.Command {
	var p api.ThreadReadParams
	cmd := threadCmd(a, "read T", "Read a thread without changing it", api.ThreadRead, &p, func(t string) { p.Thread = t })
	readFlags(cmd, &p)
	return cmd
}

func newThreadWaitCmd(a *agentCommand) *cobra.Command {
	var timeout int
	p := api.ThreadWaitParams{TimeoutMs: &timeout}
	cmd := threadCmd(a, "wait T", "Wait until a thread is not active, then read it", api.ThreadWait, &p, func(t string) { p.Thread = t })
	readFlags(cmd, &p.ThreadReadParams)
	cmd.Flags().IntVar(&timeout, "timeout-ms", 30000, "give up after this many milliseconds, at most 3600000; 0 reads at once (timedOut: true while it runs)")
	return cmd
}

func newThreadListCmd(a *agentCommand) *cobra.Command {
	var p api.ThreadListParams
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List threads (default: the caller's cwd, newest first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.Caller = callerHint(cmd.Context(), "")
			return runMethod(a, cmd, api.ThreadList, p, listOf)
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Cwd, "cwd", "", "only threads in this directory (default: the caller's cwd; none through the client listener)")
	f.BoolVar(&p.AnyCwd, "all-cwd", false, "do not filter by directory")
	f.StringVar(&p.Parent, "parent", "", "only children delegated by this thread")
	f.StringVar(&p.Client, "client", "", "only threads started by this client")
	f.StringVar(&p.Ref, "ref", "", "only threads carrying this ref")
	f.IntVar(&p.Limit, "limit", 25, "threads per page, at most 100")
	f.StringVar(&p.Cursor, "cursor", "", "nextCursor of the previous page")
	f.StringVar(&p.Sort, "sort", "created-desc", "created-desc|created-asc|updated-desc|updated-asc|recency-desc|recency-asc")
	return cmd
}

func newThreadSendCmd(a *agentCommand) *cobra.Command {
	var p api.ThreadSendParams
	var message string
	cmd := &cobra.Command{
		Use:   "send T [--message TEXT | stdin]",
		Short: "Start a turn on an idle thread (THREAD_BUSY if it is running; never queued)",
		Args:  exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			text, err := readText(cmd, "message", message)
			if err != nil {
				return err
			}
			p.Thread, p.Message = args[0], text
			return runMethod(a, cmd, api.ThreadSend, p, func(res *api.ThreadSendResult) any {
				res.Next = nextCommands(cmd, res.ThreadID)
				return res
			})
		},
	}
	cmd.Flags().StringVar(&message, "message", "", "message text (default: read stdin)")
	return cmd
}

func newThreadCancelCmd(a *agentCommand) *cobra.Command {
	p := api.ThreadCancelParams{IdleOK: true} // an idle thread answers cancelled: false
	return threadCmd(a, "cancel T", "Interrupt the thread's active turn", api.ThreadCancel, &p, func(t string) { p.Thread = t })
}

// threadCmd is an agent command on the one thread T it is given: setThread puts T into the
// params, which go to m; its result is printed.
func threadCmd[P, R any](a *agentCommand, use, short string, m api.Method[P, R], params *P, setThread func(string)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			setThread(args[0])
			return runMethod(a, cmd, m, *params, nil)
		},
	}
}

// exactThreadArg requires one thread id or link.
func exactThreadArg(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return invalidArgs(cmd, "expects one thread id or codex://threads/<id> link")
	}
	return nil
}

// listOutput is thread list as the CLI prints it: nextCursor is null on the last page, the
// public shape, where the runtime API leaves the key out.
type listOutput struct {
	api.ThreadListResult
	NextCursor *string `json:"nextCursor"`
}

func listOf(res *api.ThreadListResult) any {
	out := listOutput{ThreadListResult: *res}
	if res.NextCursor != "" {
		out.NextCursor = &res.NextCursor
	}
	return &out
}
