// Package released ends quietterm's hold once Bubble Tea's package init has run: importing it
// (for its side effect, from main) is all it takes.
package released

import (
	"os"

	// Imported so that this init runs after Bubble Tea's.
	_ "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/codexhost/codexhost/internal/quietterm"
)

func init() {
	quietterm.Restore()
	// termenv's default output was built while TERM read "dumb"; build it again on the real
	// TERM. lipgloss's background answer stays the one settled without asking (dark); the
	// terminal app sets its own before it draws.
	termenv.SetDefaultOutput(termenv.NewOutput(os.Stdout))
	lipgloss.DefaultRenderer().SetOutput(termenv.DefaultOutput())
}
