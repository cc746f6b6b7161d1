package cli

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Scenario: S000-12 — `delegate --help` prints the embedded manual: the full syntax of every
// delegate and thread command, ids, views, waiting, paging, sorting, idempotency, output
// fields and error codes, for this build's version.
func TestS000_12_DelegateHelpIsTheEmbeddedManual(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "delegate", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, section := range []string{"CONNECTION AND CALLER", "SYNTAX", "THREAD IDS", "READ VIEWS", "WAITING", "PAGING", "LISTING AND SORTING", "IDEMPOTENCY", "OUTPUT", "ERRORS"} {
		if !strings.Contains(out, section) {
			t.Errorf("manual lacks section %s", section)
		}
	}
	if !strings.Contains(out, "codexhost "+Version) {
		t.Error("manual does not name this build's version")
	}
	for _, code := range []string{"INVALID_ARGUMENT", "HARNESS_NOT_FOUND", "THREAD_NOT_FOUND", "THREAD_BUSY", "PARENT_THREAD_AMBIGUOUS", "RUNTIME_UNREACHABLE", "PERMISSION_DENIED", "FAILED_PRECONDITION", "DELEGATION_FAILED", "INTERNAL_ERROR"} {
		if !regexp.MustCompile(`(?m)^  ` + code + ` +\S`).MatchString(out) {
			t.Errorf("manual does not explain error code %s", code)
		}
	}
}

// The syntax section is generated from the command tree; every flag of every command of the
// groups appears, so the manual cannot drift from the binary.
func TestManualListsEveryCommandAndFlagOfTheTree(t *testing.T) {
	t.Parallel()
	out, _, _ := run(t, "delegate", "--help")
	root := NewRoot(&bytes.Buffer{}, &bytes.Buffer{})
	for _, group := range manualGroups {
		g, _, err := root.Find([]string{group})
		if err != nil || g == root {
			t.Fatalf("group %s missing from the tree", group)
		}
		for _, sub := range g.Commands() {
			if sub.Name() == "help" {
				continue
			}
			if !strings.Contains(out, "codexhost "+group+" "+sub.Use) {
				t.Errorf("manual lacks `codexhost %s %s`", group, sub.Use)
			}
			for _, name := range flagNames(sub) {
				if !strings.Contains(out, "--"+name) {
					t.Errorf("manual lacks flag --%s of %s %s", name, group, sub.Name())
				}
			}
		}
	}
	// Commands named in the prose exist.
	for _, m := range regexp.MustCompile("`(?:codexhost )?(thread|delegate) ([a-z]+)").FindAllStringSubmatch(delegateManual, -1) {
		g, _, _ := root.Find([]string{m[1], m[2]})
		if g == nil || g.Name() != m[2] {
			t.Errorf("manual mentions `%s %s`, which this build does not have", m[1], m[2])
		}
	}
}

func TestSubcommandHelpIsCobraHelp(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "delegate", "start", "--help")
	if code != 0 || !strings.Contains(out, "--request-id") || strings.Contains(out, "IDEMPOTENCY") {
		t.Fatalf("delegate start --help should be the command's own usage: %q", out)
	}
}

func flagNames(cmd *cobra.Command) []string {
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" && !f.Hidden { // hidden flags stay out of help and manual alike
			names = append(names, f.Name)
		}
	})
	return names
}

// A flag that names its value in its usage (`H`) reads the same in the manual as in the
// command's own --help: the placeholder, without the backticks, not the value's type.
func TestManualFlagPlaceholdersAreTheHelpOnes(t *testing.T) {
	t.Parallel()
	manual, _, _ := run(t, "delegate", "--help")
	own, _, _ := run(t, "delegate", "start", "--help")
	for _, line := range []string{"--harness H ", "--model MODEL ", "--thinking OPTION ", "--approval POLICY "} {
		if !strings.Contains(own, line) {
			t.Fatalf("delegate start --help lacks %q: the check is stale", line)
		}
		if !strings.Contains(manual, line) {
			t.Errorf("the manual lacks %q, which delegate start --help shows", line)
		}
	}
	if strings.Contains(manual, "STRING `") {
		t.Error("the manual shows a usage placeholder with its backticks")
	}
}

// A flag's value placeholder in --help is one word: pflag takes the first backquoted name of
// a usage for it, so a command quoted in the usage would read as the value
// ("--host codexhost hosts").
func TestFlagPlaceholdersAreOneWord(t *testing.T) {
	t.Parallel()
	walk(NewRoot(io.Discard, io.Discard), func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); strings.ContainsAny(name, " \t") {
				t.Errorf("%s --%s: placeholder %q", c.CommandPath(), f.Name, name)
			}
		})
	})
}
