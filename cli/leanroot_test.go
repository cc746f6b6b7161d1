package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// runTree runs args on the tree mk builds, as executeEnv does, with no runtime reachable.
func runTree(t *testing.T, mk func(stdout, stderr io.Writer) *cobra.Command, args []string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := mk(&out, &errOut)
	root.SetArgs(args)
	e := processEnv.overlay(map[string]string{envHome: t.TempDir(), envClientToken: "", "CODEXHOST_RUNTIME_ENDPOINT": "", "CODEXHOST_RUNTIME_TOKEN": ""})
	cmd, err := root.ExecuteContextC(withEnv(context.Background(), e))
	code := 0
	if err != nil {
		code = printError(&errOut, cmd, args, err)
	}
	return out.String(), errOut.String(), code
}

// The lean tree that runs the agent-facing commands answers exactly as the whole tree does:
// output, help (the manual of delegate --help lists every agent-facing group), usage errors
// and the error of an unreachable runtime; other first arguments get the whole tree.
func TestLeanTreeAnswersAsTheWholeTree(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"version"},
		{"version", "extra"},
		{"delegate", "--help"},
		{"delegate", "start", "--help"},
		{"thread", "--help"},
		{"thread", "read", "--help"},
		{"thread", "read"},
		{"thread", "bogus"},
		{"thread", "read", "t1", "--bogus"},
		{"thread", "list", "--format", "compact", "--no-color"},
		{"thread", "read", "t1"},
		{"harness", "list"},
		{"harness", "inspect", "--help"},
	}
	for _, args := range cases {
		wantOut, wantErr, wantCode := runTree(t, NewRoot, args)
		gotOut, gotErr, gotCode := runTree(t, newLeanRoot, args)
		if gotOut != wantOut || gotErr != wantErr || gotCode != wantCode {
			t.Errorf("%q: lean tree (%d)\n%s%s\nwhole tree (%d)\n%s%s", strings.Join(args, " "), gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
		}
	}
	for _, args := range [][]string{nil, {"--help"}, {"sessions"}, {"help", "thread"}, {"__complete", "thread", ""}, {"threads"}} {
		if root := rootFor(args, io.Discard, io.Discard); len(root.Commands()) < 10 {
			t.Errorf("%q ran on the lean tree", args)
		}
	}
}
