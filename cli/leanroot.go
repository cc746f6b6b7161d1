package cli

import (
	"io"

	"github.com/spf13/cobra"
)

// The commands agents and scripts run most are run from a tree of only themselves: building
// the whole tree runs the constructor of every command, whose code is then read from the
// binary on the process's first touch of it, and that is a large part of what a short
// command costs beyond a plain Go program (bench/cli-floor.sh). The lean tree holds every
// agent-facing group, since the manual (`delegate --help`) lists all of them, and the root
// with its flags; everything else (help, completion, unknown commands, the terminal app)
// gets the whole tree. A switch, not a map: a map literal is built by every process at start.
func leanCommand(name string) bool {
	switch name {
	case "version", "delegate", "thread", "harness":
		return true
	}
	return false
}

// rootFor builds the tree that runs args: the lean tree when the first argument names one
// of its commands, else the whole tree.
func rootFor(args []string, stdout, stderr io.Writer) *cobra.Command {
	if len(args) == 0 || !leanCommand(args[0]) {
		return NewRoot(stdout, stderr)
	}
	return newLeanRoot(stdout, stderr)
}

func newLeanRoot(stdout, stderr io.Writer) *cobra.Command {
	root := newBareRoot(stdout, stderr)
	root.AddCommand(newVersionCmd(), newHarnessCmd(), newDelegateCmd(), newThreadCmd())
	finishTree(root)
	return root
}
