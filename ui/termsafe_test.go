package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/internal/mdterm"
	"github.com/codexhost/codexhost/internal/termsafe"
)

const hostileText = "HOSTILE \x1b]0;pwned\x07 \x1b]52;c;Y3VybA==\x07 \x1b[2J \u009b1m \r\u202Eevil\u2066x\u2069\u200f\u061c end"

// lipgloss draws a string's escape sequences as they are (it measures around them), so the
// panes clean message text themselves: clean and the markdown renderer let no control or
// bidi control through.
func TestPanesDrawHostileTextInert(t *testing.T) {
	t.Parallel()
	if raw := lipgloss.NewStyle().Render(hostileText); strings.Contains(raw, "\x1b]52;") {
		t.Log("lipgloss passes an OSC 52 through: the text must be cleaned before it")
	}
	for name, out := range map[string]string{
		"clean":    clean(hostileText),
		"oneLine":  oneLine(hostileText),
		"markdown": strings.Join(mdterm.Render("# "+hostileText+"\n\n"+hostileText+"\n\n`"+hostileText+"`\n\n```\n"+hostileText+"\n```\n", 60, "notty", termenv.Ascii), "\n"),
	} {
		if strings.IndexByte(out, 0x1b) >= 0 || !termsafe.Safe(out) {
			t.Errorf("%s lets a control through: %q", name, out)
		}
	}
}
