package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// newMarkersCmd groups the upkeep of what marker blocks leave behind.
func newMarkersCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "markers",
		Short: "Upkeep of the worktrees and branches task-create blocks made",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newMarkersPruneCmd())
	return cmd
}

func newMarkersPruneCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 120000}
	var p api.MarkersPruneParams
	cmd := &cobra.Command{
		Use:   "prune [--dry-run] [--json]",
		Short: "Remove the worktrees and branches of marker-created threads that ended",
		Long: "Remove the worktree each marker-created thread got, and its codexhost/marker-* branch, once the thread ended: " +
			"its last turn is completed, failed or interrupted (or the thread is gone) and no watch or marker run of it is pending. " +
			"A worktree with uncommitted changes is kept, and so is a branch with commits no other branch, tag or remote reaches; " +
			"both are listed with the reason, every time. Threads that have not ended are listed and left alone. " +
			"A marker worktree in the worktree folder that no record names (a runtime stopped while creating its thread) is removed the same way. " +
			"--dry-run changes nothing and prints what would be removed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			res, err := operatorCall(&o, cmd, api.MarkersPrune, p)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printPrune(w, res) })
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&p.DryRun, "dry-run", false, "change nothing; print what would be removed")
	return cmd
}

// printPrune renders one line per worktree or branch: removed, kept (with why) or in use.
func printPrune(w io.Writer, res api.MarkersPruneResult) {
	verb := map[bool]string{false: "removed", true: "would remove"}[res.DryRun]
	del := map[bool]string{false: "deleted", true: "would delete"}[res.DryRun]
	if len(res.Threads) == 0 {
		fmt.Fprintln(w, "no marker worktrees or branches")
	}
	for _, it := range res.Threads {
		if it.Thread == "" {
			fmt.Fprintln(w, "no thread (the runtime stopped while creating it)")
		} else {
			fmt.Fprintf(w, "thread %s\n", model.ThreadID(it.Thread).Link())
		}
		printCleanup(w, it.Cleanup, verb, del)
	}
}

// printCleanup renders what became of one worktree and branch.
func printCleanup(w io.Writer, c model.MarkerCleanup, verb, del string) {
	if c.Worktree != "" {
		if c.WorktreeRemoved {
			fmt.Fprintf(w, "  %s worktree %s\n", verb, termsafe.String(c.Worktree))
		} else {
			fmt.Fprintf(w, "  kept worktree %s: %s\n", termsafe.String(c.Worktree), termsafe.String(c.Kept))
		}
	}
	switch {
	case c.Branch == "":
	case c.BranchDeleted:
		fmt.Fprintf(w, "  %s branch %s\n", del, termsafe.String(c.Branch))
	case c.WorktreeRemoved || c.Worktree == "":
		fmt.Fprintf(w, "  kept branch %s: %s\n", termsafe.String(c.Branch), termsafe.String(c.Kept))
	default:
		fmt.Fprintf(w, "  kept branch %s (its worktree is kept)\n", termsafe.String(c.Branch))
	}
}
