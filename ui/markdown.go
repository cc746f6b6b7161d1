package ui

import (
	"github.com/codexhost/codexhost/internal/mdterm"
	"github.com/muesli/termenv"
)

type mdJob struct{ key, text string }

// renderMarkdown renders assistant messages in the look of style (dark, light or notty); it
// runs inside a command so a long transcript never holds up a frame.
func renderMarkdown(style string, profile termenv.Profile, width int, jobs []mdJob) map[string][]string {
	out := make(map[string][]string, len(jobs))
	for _, j := range jobs {
		out[j.key] = mdterm.Render(j.text, width, style, profile)
	}
	return out
}
