package themes

import (
	"strconv"
	"strings"
)

// DarkBackground settles whether the terminal app draws for a dark background. A theme that
// names its background, no colour at all, or COLORFGBG decides it; only when none does is ask
// called (once), and a terminal that does not answer counts as dark. asked tells whether the
// terminal was asked.
func DarkBackground(p Palette, noColor bool, getenv func(string) string, ask func() (dark, ok bool)) (dark, asked bool) {
	switch {
	case p.Name == DarkName:
		return true, false
	case p.Name == LightName:
		return false, false
	case noColor:
		return true, false
	}
	if d, ok := colorFGBG(getenv("COLORFGBG")); ok {
		return d, false
	}
	d, ok := ask()
	if !ok {
		return true, true
	}
	return d, true
}

// colorFGBG reads rxvt's "fg;bg" (or "fg;x;bg") convention: the last field is the background's
// ANSI colour index; 0–6 and 8 are dark.
func colorFGBG(v string) (dark, ok bool) {
	if !strings.Contains(v, ";") {
		return false, false
	}
	f := strings.Split(v, ";")
	last := f[len(f)-1]
	if last == "default" {
		return true, true
	}
	i, err := strconv.Atoi(last)
	if err != nil || i < 0 || i > 15 {
		return false, false
	}
	return i < 7 || i == 8, true
}
