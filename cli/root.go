// Package cli holds the cobra commands: the headless face of every runtime action.
package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
)

// Version is set at build time by the release pipeline (-ldflags "-X ...cli.Version=...").
var Version = "dev"

// NewRoot builds the whole command tree. Each call returns a fresh tree so tests can run
// commands side by side.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := newBareRoot(stdout, stderr)
	root.AddCommand(newVersionCmd(), newManCmd(root), newServeCmd(), newClientCmd(), newNodeCmd(), newHarnessCmd(), newDelegateCmd(), newThreadCmd(),
		newSessionsCmd(), newTranscriptCmd(), newContinueCmd(), newArchiveCmd(), newHostsCmd(), newLineageCmd(), newUsageCmd(), newHandoffCmd(), newTaskCmd())
	root.AddCommand(newDoctorCmd(), newCompatCmd(), newMCPCmd(), newBackupCmd(), newRestoreCmd(), newSkillCmd(), newCodexCmd(), newMarkersCmd(), newApprovalsCmd(), newApproveCmd())
	finishTree(root)
	// Shell completion (cobra's __complete) runs on this tree only, never on the lean one.
	registerCompletions(root)
	return root
}

// newBareRoot is the root command without subcommands: its flags, output and the terminal app.
func newBareRoot(stdout, stderr io.Writer) *cobra.Command {
	var tui tuiFlags
	root := &cobra.Command{
		Use:           "codexhost",
		Short:         "Host, watch and steer many coding-agent threads at once",
		Long:          "codexhost hosts coding-agent threads on harnesses (native Codex through the official App Server, and external CLI agents), records every delegation, and lets people and agents read, wait for, list, message, cancel and watch threads.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		// Without a subcommand: the terminal app.
		RunE: func(cmd *cobra.Command, _ []string) error { return runTUI(cmd, tui) },
	}
	tui.register(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root
}

// invalidArgs is the error of a command called with the wrong arguments.
func invalidArgs(cmd *cobra.Command, what string) error {
	return model.Errorf(model.CodeInvalidArgument, "usage: "+cmd.UseLine(), "%s %s", cmd.CommandPath(), what)
}

// Execute runs the command line and maps errors to the CLI contract: a model.Error prints on
// stderr with exit 1, as {"error":{...}} from agent-facing commands and under --json, as text
// otherwise.
func Execute(args []string, stdout, stderr io.Writer) int {
	return executeEnv(args, stdout, stderr, processEnv)
}

// executeEnv is Execute with the commands reading e instead of the process's environment.
func executeEnv(args []string, stdout, stderr io.Writer, e env) int {
	root := rootFor(args, stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(withEnv(context.Background(), e))
	if err == nil {
		return 0
	}
	return printError(stderr, cmd, args, err)
}
