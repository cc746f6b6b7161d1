package cli

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/opview"
	"github.com/codexhost/codexhost/runtime/api"
)

func newApprovalsCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.ApprovalListParams
	cmd := &cobra.Command{
		Use:   "approvals [--pending] [--json]",
		Short: "List what native threads ask a person to approve (pending first), and what was decided",
		Long: "Threads started with --approval on-request or untrusted ask before running a command or changing files outside their sandbox. " +
			"Each request waits here until one owner answers it (codexhost approve), or is declined at [approvals] timeout (10 minutes by default).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := operatorCall(&o, cmd, api.ApprovalList, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { opview.Approvals(w, res.Approvals, time.Now()) })
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&p.Pending, "pending", false, "only the approvals that wait for an answer")
	return cmd
}

func newApproveCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.ApprovalAnswerParams
	cmd := &cobra.Command{
		Use:   "approve ID --decision accept|acceptForSession|decline|cancel [--fence N]",
		Short: "Answer an approval request: Codex gets the decision at once",
		Long: "Without --fence it takes the request's lease and answers in one step; a lease another client holds is refused until it expires " +
			"(the operator can always take it). With --fence it answers under the lease of that fence, and is refused when the lease has moved on since.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.ID = args[0]
			res, err := operatorCall(&o, cmd, api.ApprovalAnswer, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { opview.Approval(w, res.Approval, time.Now()) })
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&p.Decision, "decision", "", "accept, acceptForSession (when offered), decline or cancel (interrupts the turn)")
	f.Int64Var(&p.Fence, "fence", 0, "answer under this lease fence (from the approval's lease)")
	_ = cmd.MarkFlagRequired("decision")
	return cmd
}

// approvalPolicyHelp is the --approval flag's help.
var approvalPolicyHelp = "`POLICY`: Codex approval policy of a native child: never (default), on-request or untrusted; its requests wait in `codexhost approvals`"
