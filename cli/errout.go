package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/shquote"
	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/model"
)

// annotationErrors marks a command (and its subcommands) whose errors print as one JSON
// document whatever its flags: the agent-facing commands, whose results are JSON by default.
const annotationErrors = "codexhost.errors"

// markJSONErrors makes cmd an agent-facing command for error output.
func markJSONErrors(cmd *cobra.Command) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationErrors] = "json"
}

// printError is the one place a failed command line is reported on stderr: as the JSON
// envelope of the CLI contract for agent-facing commands and under --json, as text for
// people otherwise. It returns the exit status.
func printError(w io.Writer, cmd *cobra.Command, args []string, err error) int {
	var me *model.Error
	if !errors.As(err, &me) {
		// Flag and argument errors from cobra are the caller's mistake.
		me = model.Errorf(model.CodeInvalidArgument, "run the command with --help for its syntax", "%v", err)
	}
	if errorsAsJSON(cmd, args) {
		fmt.Fprintln(w, string(runnableHint(me, hintSelf()).JSON()))
	} else {
		fmt.Fprint(w, termsafe.String(me.Text()))
	}
	return me.ExitCode()
}

// errorsAsJSON reports whether cmd reports its errors as JSON: it is agent-facing or prints
// JSON by default, unless --text asked for the form for people, or --json was asked for
// (read from args as well, since a failed parse leaves the flags unset).
func errorsAsJSON(cmd *cobra.Command, args []string) bool {
	if cmd != nil && flagSet(cmd, args, "text") {
		return false
	}
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[annotationErrors] == "json" {
			return true
		}
	}
	if cmd == nil || cmd.Flag("json") == nil {
		return false
	}
	return cmd.Flag("json").DefValue == "true" || flagSet(cmd, args, "json")
}

// flagSet reports whether boolean flag name of cmd is on, from the parsed flags or, when
// parsing failed before it, from args.
func flagSet(cmd *cobra.Command, args []string, name string) bool {
	f := cmd.Flag(name)
	if f == nil {
		return false
	}
	if f.Changed {
		return f.Value.String() == "true"
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--"+name || a == "--"+name+"=true" {
			return true
		}
	}
	return false
}

// hintSelf is the binary the hints name; the in-process tests, whose binary is the test
// binary, keep `codexhost` so that they can run what a hint names through the CLI.
var hintSelf = selfPath

// runnableHint is me with the commands its hint names (`codexhost …`) naming this binary,
// shell-quoted, as the next commands do: the JSON errors go to agents and scripts, whose PATH
// may hold no codexhost (an agent gets CODEXHOST_CLI_PATH) or another one.
func runnableHint(me *model.Error, self string) *model.Error {
	if !strings.Contains(me.Hint, "`codexhost ") || self == "codexhost" {
		return me
	}
	c := *me
	c.Hint = strings.ReplaceAll(me.Hint, "`codexhost ", "`"+shquote.Quote(self)+" ")
	return &c
}
