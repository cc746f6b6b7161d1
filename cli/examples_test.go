package cli

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/runtime/handoff"
)

// shellWords splits a command line as a shell would for these examples: words, single and
// double quotes; it stops at a comment or a redirection.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i, w := range words {
		if w == "#" || w == ">" || w == "<" {
			return words[:i]
		}
	}
	return words
}

// codexhostCommands are the codexhost invocations of an example line (one per pipe stage).
func codexhostCommands(line string) [][]string {
	var out [][]string
	for _, stage := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == '&' }) {
		if w := shellWords(strings.TrimSpace(stage)); len(w) > 0 && w[0] == "codexhost" {
			out = append(out, w[1:])
		}
	}
	return out
}

// Every command's help has an Examples section, and every example names a command of the
// tree with flags it knows and the arguments it takes.
func TestEveryCommandHasExamplesThatParse(t *testing.T) {
	t.Parallel()
	walk(NewRoot(io.Discard, io.Discard), func(c *cobra.Command) {
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no examples()", c.CommandPath())
			return
		}
		for _, line := range strings.Split(c.Example, "\n") {
			cmds := codexhostCommands(strings.TrimSpace(line))
			if len(cmds) == 0 {
				t.Errorf("%s: example %q runs no codexhost command", c.CommandPath(), line)
			}
			for _, args := range cmds {
				if err := parseExample(args); err != nil {
					t.Errorf("%s: example %q: %v", c.CommandPath(), line, err)
				}
			}
		}
	})
}

// parseExample parses args against a fresh tree as cobra would before running the command.
func parseExample(args []string) error {
	root := NewRoot(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); errors.Is(err, pflag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if cmd.Name() == "help" {
		_, _, err := root.Find(cmd.Flags().Args())
		return err
	}
	if cols, ok := tableColumns[strings.TrimPrefix(cmd.CommandPath(), "codexhost ")]; ok {
		if err := (&table.Table{Columns: cols}).Sort(cmd.Flags().Lookup("sort").Value.String()); err != nil {
			return err
		}
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// tableColumns are the columns --sort takes, by command.
var tableColumns = map[string][]table.Column{
	"sessions": opview.SessionColumns, "hosts": opview.HostColumns, "handoff list": opview.HandoffColumns, "task status": opview.TaskColumns,
}

func TestExampleParsingCatchesMistakes(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"codexhost thraed list", "codexhost sessions --bogus", "codexhost thread read", "codexhost version extra", "codexhost hosts --sort size"} {
		for _, args := range codexhostCommands(bad) {
			if parseExample(args) == nil {
				t.Errorf("%q parsed", bad)
			}
		}
	}
	if got := shellWords(`codexhost a 'b c' "d" > f # x`); strings.Join(got, "|") != "codexhost|a|b c|d" {
		t.Errorf("shellWords: %q", got)
	}
}

// The ids the examples show have the shape the runtime gives them, so an example reads as a
// real command with a placeholder id, not as a different kind of id.
func TestExampleIdsHaveTheRealShape(t *testing.T) {
	t.Parallel()
	if !handoff.ValidHandoffID(exHandoff) {
		t.Errorf("example handoff id %q is not one handoff create makes", exHandoff)
	}
	for _, id := range []string{exThread, exTask} {
		if _, err := uuid.Parse(id); err != nil {
			t.Errorf("example thread id %q: %v", id, err)
		}
	}
}
