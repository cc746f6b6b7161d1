package cli

import (
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/internal/termsafe"
)

// tableFlags are the flags of a command that prints a table: --sort COLUMN.
type tableFlags struct {
	columns []table.Column
	sort    string
}

func (f *tableFlags) register(cmd *cobra.Command, columns []table.Column) {
	f.columns = columns
	cmd.Flags().StringVar(&f.sort, "sort", "", "sort the rows by a column: "+table.SortNames(columns))
}

// check refuses an unknown --sort column before anything is asked of the runtime.
func (f *tableFlags) check() error {
	return (&table.Table{Columns: f.columns}).Sort(f.sort)
}

// show sorts t as --sort asks and writes it as the terminal (or pipe) that stdout is allows.
func (f *tableFlags) show(cmd *cobra.Command, w io.Writer, t table.Table, indent string) {
	_ = t.Sort(f.sort) // checked before the call
	o := tableOptions(cmd)
	o.Indent = indent
	_ = t.Render(termsafe.Unwrap(w), o) // the table cleans its own cells and adds its colours
}

// tableOptions reads the terminal of the command's stdout, the environment and --no-color.
func tableOptions(cmd *cobra.Command) table.Options {
	noColor := false
	if fl := cmd.Flag("no-color"); fl != nil {
		noColor = fl.Value.String() == "true"
	}
	return table.Detect(cmd.OutOrStdout(), envOf(cmdContext(cmd)).get, noColor, time.Now())
}
