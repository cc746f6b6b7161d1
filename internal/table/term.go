package table

import (
	"io"
	"strconv"
	"time"

	"golang.org/x/term"
)

// fd is what a terminal output has: an *os.File does.
type fd interface{ Fd() uintptr }

// Detect is how to show a table on out. On a terminal: its width and colour, unless
// NO_COLOR or CODEXHOST_NO_COLOR is set, TERM is dumb, or noColor (--no-color). Elsewhere
// (a pipe, a file): no colour, and COLUMNS as the width when it is set, else the full width,
// because a pipe feeds grep, cut or a file, where a cut id or path is lost information.
func Detect(out io.Writer, getenv func(string) string, noColor bool, now time.Time) Options {
	o := Options{Now: now}
	if f, ok := out.(fd); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			o.Width = w
		}
		o.Color = !noColor && getenv("NO_COLOR") == "" && getenv("CODEXHOST_NO_COLOR") == "" && getenv("TERM") != "dumb"
	}
	if o.Width == 0 {
		if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
			o.Width = n
		}
	}
	return o
}
