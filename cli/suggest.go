package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
)

// unknownCommand is the error of a misspelt subcommand: cobra's "did you mean" suggestions go
// into the hint as commands to run.
func unknownCommand(cmd *cobra.Command, name string) error {
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, which only its error path sets
	}
	suggestions := cmd.SuggestionsFor(name)
	hint := "`" + cmd.CommandPath() + " --help` lists the commands"
	if len(suggestions) > 0 {
		full := make([]string, len(suggestions))
		for i, s := range suggestions {
			full[i] = "`" + cmd.CommandPath() + " " + s + "`"
		}
		hint = "did you mean " + strings.Join(full, " or ") + "? " + hint
	}
	return model.Errorf(model.CodeInvalidArgument, hint, "unknown command %q for %q", name, cmd.CommandPath())
}

// rejectUnknownSubcommands makes every command of the tree that has subcommands refuse a word
// it does not know, with suggestions, instead of printing its help with exit 0 (a command
// group) or starting the terminal app's argument check (the root). Called with no arguments a
// group still prints its help.
func rejectUnknownSubcommands(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		rejectUnknownSubcommands(sub)
	}
	if !cmd.HasSubCommands() {
		return
	}
	cmd.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownCommand(c, args[0])
		}
		return nil
	}
	if !cmd.Runnable() {
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
}
