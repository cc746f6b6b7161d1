package cli

import "github.com/spf13/cobra"

// finishTree applies what every command of the tree shares, once the tree is built: cobra's
// own commands are added first so that they get it too.
func finishTree(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	rejectUnknownSubcommands(root)
	setExamples(root)
}
