package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/runtime/api"
)

func newDelegateCmd() *cobra.Command {
	var a agentCommand
	cmd := &cobra.Command{
		Use:   "delegate",
		Short: "Delegate work to another thread (agent-facing; see `codexhost delegate --help`)",
		Args:  cobra.NoArgs,
	}
	a.register(cmd)
	registerOperatorForm(cmd)
	cmd.AddCommand(newDelegateStartCmd(&a))
	setManual(cmd)
	return cmd
}

func newDelegateStartCmd(a *agentCommand) *cobra.Command {
	var p api.DelegateStartParams
	var parent, task string
	cmd := &cobra.Command{
		Use:   "start --harness H [--task TEXT | stdin]",
		Short: "Start a child thread on a harness with a task",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := windowGiven(cmd, "watch-timeout-ms", int64(p.WatchTimeoutMs)); err != nil {
				return err
			}
			text, err := readText(cmd, "task", task)
			if err != nil {
				return err
			}
			p.Task = text
			p.Caller = callerHint(cmd.Context(), parent)
			return runMethod(a, cmd, api.DelegateStart, p, func(res *api.DelegateStartResult) any {
				res.Next = nextCommands(cmd, res.ThreadID)
				return res
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&p.Harness, "harness", "", "`H`: the target harness (codexhost harness list names them)")
	f.StringVar(&task, "task", "", "task text (default: read stdin)")
	f.StringVar(&parent, "parent-thread", "", "the delegating thread (default: the thread this process's CODEXHOST_RUNTIME_TOKEN was given for; its own tree only)")
	f.StringVar(&p.RequestID, "request-id", "", "idempotency key: the same id returns the same child")
	f.StringArrayVar(&p.Refs, "ref", nil, "absolute URI of related material (repeatable, at most 16 with inherited ones)")
	f.StringVar(&p.Cwd, "cwd", "", "working directory of the child (default: the caller's)")
	f.StringVar(&p.Model, "model", "", "`MODEL` of the child (default: the harness's; codexhost harness inspect H lists them)")
	f.StringVar(&p.Approval, "approval", "", approvalPolicyHelp)
	f.StringVar(&p.Thinking, "thinking", "", "`OPTION`: thinking of the child's model (codexhost harness inspect H lists them)")
	f.Var(&boolValue{&p.Watch}, "watch", "true: also watch the child and notify the caller once when it stops (default false)")
	f.IntVar(&p.WatchTimeoutMs, "watch-timeout-ms", 0, "observation window of --watch in milliseconds (default 30 minutes)")
	_ = cmd.MarkFlagRequired("harness")
	return cmd
}

// boolValue is a boolean flag that takes its value as a separate word (`--watch true`), the
// form agents already use; pflag's bool flags accept only `--watch` or `--watch=true`.
type boolValue struct{ v *bool }

func (b *boolValue) String() string {
	if b.v == nil || !*b.v {
		return "false"
	}
	return "true"
}

func (b *boolValue) Set(s string) error {
	switch s {
	case "true":
		*b.v = true
	case "false":
		*b.v = false
	default:
		return fmt.Errorf("use true or false, not %q", s)
	}
	return nil
}

func (b *boolValue) Type() string { return "true|false" }
