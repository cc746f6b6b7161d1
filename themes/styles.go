package themes

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Glyphs carry the cues colour carries, so they survive NO_COLOR (where bold, reverse and
// underline go too): the cursor row, the focused pane, danger and the tree's folds.
type Glyphs struct {
	Cursor    string // before the selected row
	NoCursor  string // same width, other rows
	Focus     string // before the focused pane's title
	Danger    string // before errors and destructive prompts
	Expanded  string
	Collapsed string
	Leaf      string
	More      string // a page can be loaded here
}

// Styles is every style of the app, built once from a renderer and a palette.
type Styles struct {
	NoColor  bool
	Markdown string // look of assistant text (internal/mdterm): dark, light or notty
	G        Glyphs

	Text, Muted, Accent, OK, Warn, Danger lipgloss.Style
	Title, TitleFocused                   lipgloss.Style
	Border, BorderFocused                 lipgloss.Style
	Selected, SelectedInactive            lipgloss.Style
	User, Assistant                       lipgloss.Style
	StatusBar, StatusError, StatusOK      lipgloss.Style
	HelpKey, HelpDesc, HelpSection        lipgloss.Style
	DialogBorder, DialogDanger            lipgloss.Style
	BadgeIdle, BadgeActive, BadgeWaiting  lipgloss.Style
	BadgeStored, BadgeError               lipgloss.Style
}

// New builds the styles of palette p for renderer r. A renderer with the Ascii profile
// (NO_COLOR, --no-color, or no terminal) gets no colour and no text attributes.
func New(r *lipgloss.Renderer, p Palette) Styles {
	fg := func(c lipgloss.AdaptiveColor) lipgloss.Style { return r.NewStyle().Foreground(c) }
	s := Styles{
		NoColor: r.ColorProfile() == termenv.Ascii,
		G: Glyphs{Cursor: "› ", NoCursor: "  ", Focus: "▸ ", Danger: "! ",
			Expanded: "▾ ", Collapsed: "▸ ", Leaf: "· ", More: "↓ "},
		Text:             fg(p.Text),
		Muted:            fg(p.Muted),
		Accent:           fg(p.Accent),
		OK:               fg(p.OK),
		Warn:             fg(p.Warn),
		Danger:           fg(p.Danger).Bold(true),
		Title:            fg(p.Muted),
		TitleFocused:     fg(p.Accent).Bold(true),
		Border:           fg(p.Border),
		BorderFocused:    fg(p.BorderFocused),
		Selected:         r.NewStyle().Foreground(p.SelFg).Background(p.SelBg).Bold(true),
		SelectedInactive: r.NewStyle().Background(p.SelBgInactive),
		User:             fg(p.User).Bold(true),
		Assistant:        fg(p.Assistant).Bold(true),
		StatusBar:        r.NewStyle().Foreground(p.Text).Background(p.StatusBg),
		StatusError:      r.NewStyle().Foreground(p.Danger).Background(p.StatusBg).Bold(true),
		StatusOK:         r.NewStyle().Foreground(p.OK).Background(p.StatusBg),
		HelpKey:          fg(p.Accent),
		HelpDesc:         fg(p.Muted),
		HelpSection:      fg(p.Text).Bold(true),
		DialogBorder:     fg(p.BorderFocused),
		DialogDanger:     fg(p.Danger),
		BadgeIdle:        fg(p.Muted),
		BadgeActive:      fg(p.OK).Bold(true),
		BadgeWaiting:     fg(p.Warn).Bold(true),
		BadgeStored:      fg(p.Muted),
		BadgeError:       fg(p.Danger).Bold(true),
	}
	switch {
	case s.NoColor:
		s.Markdown = "notty"
	case p.Name == LightName:
		s.Markdown = "light"
	case p.Name == DarkName:
		s.Markdown = "dark"
	case r.HasDarkBackground():
		s.Markdown = "dark"
	default:
		s.Markdown = "light"
	}
	return s
}

// NoColorRequested reports whether the user asked for no colour: the --no-color flag, or
// NO_COLOR / CODEXHOST_NO_COLOR set to anything (no-color.org).
func NoColorRequested(flag bool, getenv func(string) string) bool {
	return flag || getenv("NO_COLOR") != "" || getenv("CODEXHOST_NO_COLOR") != ""
}
