package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func newApprovalsCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.ApprovalListParams
	var follow bool
	cmd := &cobra.Command{
		Use:   "approvals [--pending] [--follow] [--json]",
		Short: "List what native threads ask a person to approve (pending first), and what was decided",
		Long: "Threads started with --approval on-request or untrusted ask before running a command or changing files outside their sandbox. " +
			"Each request waits here until one owner answers it (codexhost approve), or is declined at [approvals] timeout (10 minutes by default).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if follow {
				if !cmd.Flags().Changed("timeout-ms") {
					o.timeoutMs = 0 // following lasts until the command is stopped
				}
				return followAcrossRestarts(cmd, &o, p)
			}
			res, err := operatorCall(&o, cmd, api.ApprovalList, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { opview.Approvals(w, res.Approvals, time.Now()) })
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&p.Pending, "pending", false, "only the approvals that wait for an answer")
	cmd.Flags().BoolVar(&follow, "follow", false, "after the list, print each approval as it is asked, taken or decided (with --json one {\"approval\": …} line each) until stopped; across a restart of the runtime the list is printed again")
	return cmd
}

// errEventsClosed is a followed runtime gone away (stopped, restarted, taken over).
var errEventsClosed = model.Errorf(model.CodeRuntimeUnreachable, "run codexhost approvals --follow again", "the runtime's event stream closed")

// followAcrossRestarts follows until stopped (or --timeout-ms, counted from the start),
// through restarts of the runtime: a closed event stream is a runtime gone away, and the
// next one that holds the home (or one started for the command, as at the start) is
// followed, its list printed again, since changes made meanwhile were not seen.
func followAcrossRestarts(cmd *cobra.Command, o *operatorCommand, p api.ApprovalListParams) error {
	deadline := time.Now().Add(time.Duration(o.timeoutMs) * time.Millisecond)
	for {
		err := o.withSession(cmd, func(ctx context.Context, s *operatorSession) error { return followApprovals(ctx, cmd, o, s, p) })
		if !errors.Is(err, errEventsClosed) {
			return err
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "codexhost approvals: the runtime's event stream closed; following the runtime that holds the home next")
		select {
		case <-cmdContext(cmd).Done():
			return nil
		case <-time.After(followRetry):
		}
		if o.timeoutMs > 0 {
			if o.timeoutMs = int(time.Until(deadline) / time.Millisecond); o.timeoutMs <= 0 {
				return nil
			}
		}
	}
}

// followRetry is the pause before following again: a restarting runtime is back by then.
const followRetry = 500 * time.Millisecond

// followApprovals prints the list, then every approval change the runtime announces to this
// caller. It subscribes before listing, so no change falls between the two.
func followApprovals(ctx context.Context, cmd *cobra.Command, o *operatorCommand, s *operatorSession, p api.ApprovalListParams) error {
	changes, err := s.subscribe(ctx)
	if err != nil {
		return err
	}
	res, err := api.ApprovalList.Call(ctx, s, p)
	if err != nil {
		return err
	}
	if err := o.print(cmd, res, func(w io.Writer) { opview.Approvals(w, res.Approvals, time.Now()) }); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-changes:
			if !ok {
				return errEventsClosed
			}
			if ev.Type != api.EventApproval || ev.Approval == nil {
				continue
			}
			a := *ev.Approval
			if err := o.print(cmd, api.ApprovalResult{Approval: a}, func(w io.Writer) { opview.Approval(w, a, time.Now()) }); err != nil {
				return err
			}
		}
	}
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
