// Package themes holds the terminal app's colours as semantic tokens, the built-in palettes,
// and the styles built from them.
package themes

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
)

// Palette is a theme: what each colour means, not which colour it is. Adaptive colours pick
// their Light or Dark side from the terminal background detected before the app starts.
type Palette struct {
	Name          string
	Text          lipgloss.AdaptiveColor
	Muted         lipgloss.AdaptiveColor
	Accent        lipgloss.AdaptiveColor
	OK            lipgloss.AdaptiveColor
	Warn          lipgloss.AdaptiveColor
	Danger        lipgloss.AdaptiveColor
	Border        lipgloss.AdaptiveColor
	BorderFocused lipgloss.AdaptiveColor
	SelFg         lipgloss.AdaptiveColor
	SelBg         lipgloss.AdaptiveColor
	SelBgInactive lipgloss.AdaptiveColor
	User          lipgloss.AdaptiveColor
	Assistant     lipgloss.AdaptiveColor
	StatusBg      lipgloss.AdaptiveColor
}

// Theme names accepted by --theme.
const (
	Auto         = "auto"
	DarkName     = "dark"
	LightName    = "light"
	HighContrast = "high-contrast"
)

// Built on first use: a package-level map or regexp is built by every process at start.
var builtins = sync.OnceValue(func() map[string]func() Palette {
	return map[string]func() Palette{
		Auto:         adaptive,
		DarkName:     Dark,
		LightName:    Light,
		HighContrast: HighContrastPalette,
	}
})

// Names lists the built-in themes, the default first.
func Names() []string {
	names := []string{Auto}
	var rest []string
	for n := range builtins() {
		if n != Auto {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// ByName returns a built-in palette; "" is the adaptive default.
func ByName(name string) (Palette, error) {
	if name == "" {
		name = Auto
	}
	f, ok := builtins()[strings.ToLower(name)]
	if !ok {
		return Palette{}, fmt.Errorf("unknown theme %q; use one of: %s", name, strings.Join(Names(), ", "))
	}
	return f(), nil
}

// fixed is a colour that does not depend on the background.
func fixed(c string) lipgloss.AdaptiveColor { return lipgloss.AdaptiveColor{Light: c, Dark: c} }

// adaptive takes the light palette on light terminals and the dark one on dark terminals.
func adaptive() Palette {
	l, d := Light(), Dark()
	mix := func(a, b lipgloss.AdaptiveColor) lipgloss.AdaptiveColor {
		return lipgloss.AdaptiveColor{Light: a.Light, Dark: b.Dark}
	}
	return Palette{
		Name: Auto, Text: mix(l.Text, d.Text), Muted: mix(l.Muted, d.Muted), Accent: mix(l.Accent, d.Accent),
		OK: mix(l.OK, d.OK), Warn: mix(l.Warn, d.Warn), Danger: mix(l.Danger, d.Danger),
		Border: mix(l.Border, d.Border), BorderFocused: mix(l.BorderFocused, d.BorderFocused),
		SelFg: mix(l.SelFg, d.SelFg), SelBg: mix(l.SelBg, d.SelBg), SelBgInactive: mix(l.SelBgInactive, d.SelBgInactive),
		User: mix(l.User, d.User), Assistant: mix(l.Assistant, d.Assistant), StatusBg: mix(l.StatusBg, d.StatusBg),
	}
}

// pair is a colour with a light-background and a dark-background side.
func pair(light, dark string) lipgloss.AdaptiveColor {
	return lipgloss.AdaptiveColor{Light: light, Dark: dark}
}
