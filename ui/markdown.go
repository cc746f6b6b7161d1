package ui

import (
	"strings"

	"github.com/charmbracelet/glamour"
	gansi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

type mdJob struct{ key, text string }

// renderMarkdown renders assistant messages; it runs inside a command because glamour is
// slow next to a frame. A message glamour cannot render is left out, and shows as plain text.
func renderMarkdown(style string, profile termenv.Profile, width int, jobs []mdJob) map[string][]string {
	var cfg gansi.StyleConfig
	switch style {
	case "dark":
		cfg = styles.DarkStyleConfig
	case "light":
		cfg = styles.LightStyleConfig
	default:
		cfg = styles.NoTTYStyleConfig
	}
	// The pane draws its own indent; glamour's document margin would only narrow the text.
	zero := uint(0)
	cfg.Document.Margin = &zero
	r, err := glamour.NewTermRenderer(glamour.WithStyles(cfg), glamour.WithWordWrap(width), glamour.WithColorProfile(profile))
	if err != nil {
		return nil
	}
	out := make(map[string][]string, len(jobs))
	for _, j := range jobs {
		s, err := r.Render(j.text)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.Trim(s, "\n"), "\n")
		var fitted []string
		for _, l := range lines {
			// Code blocks and long words come back wider than asked.
			if ansi.StringWidth(l) > width {
				fitted = append(fitted, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
				continue
			}
			fitted = append(fitted, l)
		}
		out[j.key] = fitted
	}
	return out
}
