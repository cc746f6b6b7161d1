// Package procsup runs a command under a small supervisor: this very binary re-executed with
// Arg0 as its argv[0]. The supervisor is a child subreaper, so everything the command starts
// stays below it, even after setsid and a double fork; it reaps what it inherits, and when the
// command ends, when it is told to stop, or when the process that started it dies (even by
// SIGKILL: PR_SET_PDEATHSIG), it kills every descendant that is left. It can also start the
// command with a umask of its own, which Go cannot give one child.
//
// The supervisor is selected by argv[0] rather than by a subcommand or an environment variable
// so that it works in every binary that links this package (tests too) and adds nothing to the
// environment the command sees.
package procsup

// Arg0 is the supervisor's argv[0].
const Arg0 = "codexhost-supervisor"

// Options are what the supervisor does besides supervising.
type Options struct {
	// Umask, when not nil, is the umask the command starts with.
	Umask *int
	// ReportPid makes the supervisor write the command's pid, in decimal and a newline, on a
	// pipe: Wrap returns its read end (the caller closes it).
	ReportPid bool
}

// Umask is a helper for Options.Umask.
func Umask(m int) *int { return &m }
