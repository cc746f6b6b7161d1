package cli

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

//go:embed manual/delegate.md
var delegateManual string

// manualGroups are the command groups whose syntax the manual lists.
var manualGroups = []string{"delegate", "thread", "harness"}

// setManual makes `delegate --help` print the embedded manual with a syntax section generated
// from the command tree, so the manual cannot drift from the binary.
func setManual(cmd *cobra.Command) {
	// cobra's default help renders whichever command it is given; subcommands keep it.
	defaultHelp := (&cobra.Command{}).HelpFunc()
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c != cmd {
			defaultHelp(c, args)
			return
		}
		fmt.Fprint(c.OutOrStdout(), renderManual(c.Root()))
	})
}

func renderManual(root *cobra.Command) string {
	out := strings.ReplaceAll(delegateManual, "{{VERSION}}", Version)
	out = strings.ReplaceAll(out, "{{OUTPUT_FIELDS}}", manualOutputFields())
	return strings.ReplaceAll(out, "{{SYNTAX}}", manualSyntax(root))
}

// manualSyntax lists every subcommand of the manual's groups with its flags.
func manualSyntax(root *cobra.Command) string {
	var b strings.Builder
	for _, group := range manualGroups {
		g, _, err := root.Find([]string{group})
		if err != nil || g == root {
			continue
		}
		subs := g.Commands()
		sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
		for _, sub := range subs {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			fmt.Fprintf(&b, "  codexhost %s %s\n      %s\n", group, sub.Use, sub.Short)
			sub.Flags().VisitAll(func(f *pflag.Flag) { writeFlag(&b, f) })
		}
		fmt.Fprintf(&b, "  common flags of `%s`:\n", group)
		g.PersistentFlags().VisitAll(func(f *pflag.Flag) { writeFlag(&b, f) })
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeFlag(b *strings.Builder, f *pflag.Flag) {
	if f.Hidden || f.Name == "help" {
		return
	}
	// A placeholder named in the usage (`H`) is what --help shows, without the backticks;
	// other flags show their type.
	name := "--" + f.Name
	placeholder, usage := pflag.UnquoteUsage(f)
	if t := f.Value.Type(); strings.Contains(f.Usage, "`") {
		name += " " + placeholder
	} else if t != "bool" {
		name += " " + strings.ToUpper(strings.TrimSuffix(t, "Array"))
	}
	def := ""
	if f.DefValue != "" && f.DefValue != "[]" && f.DefValue != "false" && f.DefValue != "0" {
		def = " (default " + f.DefValue + ")"
	}
	fmt.Fprintf(b, "        %-24s %s%s\n", name, usage, def)
}
