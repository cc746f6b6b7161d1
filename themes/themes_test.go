package themes

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestEveryThemeDefinesEveryToken(t *testing.T) {
	for _, name := range Names() {
		p, err := ByName(name)
		if err != nil {
			t.Fatal(err)
		}
		v := reflect.ValueOf(p)
		for i := range v.NumField() {
			c, ok := v.Field(i).Interface().(lipgloss.AdaptiveColor)
			if !ok {
				continue
			}
			if c.Light == "" || c.Dark == "" {
				t.Fatalf("%s: %s is empty: %+v", name, v.Type().Field(i).Name, c)
			}
		}
	}
}

func TestAutoIsTheDefaultAndAdaptsToTheBackground(t *testing.T) {
	p, err := ByName("")
	if err != nil || p.Name != Auto {
		t.Fatalf("default theme %q %v", p.Name, err)
	}
	if p.Danger.Light != Light().Danger.Light || p.Danger.Dark != Dark().Danger.Dark {
		t.Fatalf("auto does not pick light and dark sides: %+v", p.Danger)
	}
	if _, err := ByName("solarized"); err == nil || !strings.Contains(err.Error(), "high-contrast") {
		t.Fatalf("unknown theme: %v", err)
	}
}

func TestNoColorComesFromTheFlagOrTheEnvironment(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if NoColorRequested(false, env(nil)) {
		t.Fatal("no colour without asking")
	}
	if !NoColorRequested(true, env(nil)) || !NoColorRequested(false, env(map[string]string{"NO_COLOR": "1"})) ||
		!NoColorRequested(false, env(map[string]string{"CODEXHOST_NO_COLOR": "yes"})) {
		t.Fatal("a request for no colour was ignored")
	}
}

func TestAsciiProfileDropsColourButKeepsTheGlyphs(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	s := New(r, HighContrastPalette())
	if !s.NoColor || s.Markdown != "notty" {
		t.Fatalf("ascii styles: NoColor %v markdown %q", s.NoColor, s.Markdown)
	}
	if got := s.Danger.Render("x") + s.Selected.Render("y") + s.TitleFocused.Render("z"); got != "xyz" {
		t.Fatalf("escape codes without colour: %q", got)
	}
	if s.G.Cursor == s.G.NoCursor || s.G.Focus == "" || s.G.Danger == "" {
		t.Fatalf("glyphs: %+v", s.G)
	}
	c := lipgloss.NewRenderer(io.Discard)
	c.SetColorProfile(termenv.TrueColor)
	c.SetHasDarkBackground(false)
	cs := New(c, Dark())
	if cs.NoColor || !strings.Contains(cs.Danger.Render("x"), "\x1b[") || cs.Markdown != "dark" {
		t.Fatalf("colour styles: %q %q", cs.Danger.Render("x"), cs.Markdown)
	}
	if New(c, mustTheme(t, Auto)).Markdown != "light" {
		t.Fatal("auto on a light background renders dark markdown")
	}
}

func mustTheme(t *testing.T, name string) Palette {
	p, err := ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
