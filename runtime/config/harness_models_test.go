package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

func TestHarnessModelsAreValidated(t *testing.T) {
	base := "[harnesses.claude]\ncommand = [\"claude\"]\n"
	for name, c := range map[string]struct{ toml, fails string }{
		"valid":                 {base + "default_model = \"opus\"\nthinking = [\"low\"]\ndefault_thinking = \"low\"\n[[harnesses.claude.models]]\nid = \"opus\"\nthinking = [\"high\"]\n", ""},
		"unknown default model": {base + "default_model = \"nope\"\n", "default_model"},
		"repeated model id":     {base + "[[harnesses.claude.models]]\nid = \"a\"\n[[harnesses.claude.models]]\nid = \"a\"\n", "repeated"},
		"default thinking":      {base + "thinking = [\"low\"]\ndefault_thinking = \"high\"\n", "default_thinking"},
		"model default":         {base + "[[harnesses.claude.models]]\nid = \"a\"\nthinking = [\"low\"]\ndefault_thinking = \"max\"\n", "default_thinking"},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(c.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(home)
			if c.fails == "" {
				if err != nil {
					t.Fatal(err)
				}
				if th, def := cfg.Harnesses["claude"].ModelThinking(""); len(th) != 1 || th[0] != "high" || def != "" {
					t.Errorf("thinking of the default model: %v %q", th, def)
				}
				return
			}
			if !model.IsCode(err, model.CodeInvalidArgument) || !strings.Contains(err.Error(), c.fails) {
				t.Errorf("want INVALID_ARGUMENT naming %s, got %v", c.fails, err)
			}
		})
	}
}
