package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func newContinueCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	var p api.CatalogContinueParams
	cmd := &cobra.Command{
		Use:   "continue T [--host ID] [--json] [--timeout-ms N]",
		Short: "Continue a native session as a supervised thread (a branch of a local session; a paired node's thread is bound as it is)",
		Long: "Continue a stored or idle native Codex session of a local host as a supervised codexhost thread. " +
			"The first call makes a pending branch carrying the session's newest user and assistant messages " +
			"(at most 200, 512 KiB in all, 64 KiB each); every later call returns the same thread. Its first " +
			"`thread send` pins the session's snapshot, starts the branch's own Codex thread with the model Codex " +
			"chooses, gives it that history and runs the turn; later sends continue that thread. The session " +
			"itself is never resumed or changed. Active sessions offer no branch, but an existing one still opens. " +
			"Supervised threads are model-locked.\n\n" +
			"On a paired node (--host node:NAME; needs operator.admin and a node that offers and is allowed " +
			api.NodeCmdSessionResume + ") nothing is forked: the supervised thread is bound to that exact node thread, " +
			"whose messages it shows, and each `thread send` runs `codex exec resume` on the node and " +
			"returns the final text.",
		Args: exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Thread = args[0]
			res, err := operatorCall(&o, cmd, api.CatalogContinue, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printContinue(w, res) })
		},
	}
	o.register(cmd)
	cmd.Flags().StringVar(&p.Host, "host", "", "the host of the thread (default gateway:local)")
	return cmd
}

func printContinue(w io.Writer, res api.CatalogContinueResult) {
	verb := "created"
	if res.Existing {
		verb = "existing"
	}
	fmt.Fprintf(w, "supervised thread %s (%s, %s) continues %s on %s\n", res.Thread.ID, res.State, verb, res.Source, res.Host)
	if res.Binding == model.BindingNodeSession {
		fmt.Fprintln(w, "bound to that exact node thread: each message resumes it on the node")
	}
	if h := res.History; h != nil {
		fmt.Fprintf(w, "history: %s, %s", table.Count(h.Messages, "message"), table.Count(h.Bytes, "byte"))
		if h.Truncated > 0 {
			fmt.Fprintf(w, ", %d truncated", h.Truncated)
		}
		if h.OlderOmitted {
			fmt.Fprint(w, ", older messages left out")
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "send to it: codexhost thread send %s --operator --message TEXT\n", res.Thread.ID)
}
