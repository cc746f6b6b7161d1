// Package quietterm keeps the terminal from being asked its colours while the program's
// packages initialise.
//
// Bubble Tea v1's package init calls lipgloss.HasDarkBackground, which writes `ESC]11;?` and
// `ESC[6n` to a terminal and waits up to five seconds for answers that many terminals
// (Emacs shells, serial consoles, CI logs, some multiplexers) never send. Every command would
// pay that wait, even those that print no colour. termenv skips the question when TERM is
// "dumb", so this package sets it for the length of the init phase and package released puts
// it back once Bubble Tea's init has run.
//
// Ordering: this package imports nothing but the standard library, and its import path sorts
// before github.com/muesli/termenv, so the Go init order (packages sorted by import path, each
// initialised once its imports are) runs this init before termenv's, hence before lipgloss's
// and Bubble Tea's.
package quietterm

import "os"

var (
	term    string
	hadTerm bool
	held    bool
)

func init() {
	term, hadTerm = os.LookupEnv("TERM")
	held = os.Setenv("TERM", "dumb") == nil
}

// Restore gives TERM back its value from before init. Calling it again does nothing.
func Restore() {
	if !held {
		return
	}
	held = false
	if hadTerm {
		os.Setenv("TERM", term)
	} else {
		os.Unsetenv("TERM")
	}
}

// Held reports whether TERM is still held at "dumb".
func Held() bool { return held }
