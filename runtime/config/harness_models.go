package config

import (
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
)

// HarnessModel is a model an external harness declares in config.toml:
//
//	[[harnesses.claude.models]]
//	id = "opus"
//	label = "Claude Opus"
//	thinking = ["low", "high"]
type HarnessModel struct {
	ID              string   `toml:"id"`
	Label           string   `toml:"label,omitempty"`
	Thinking        []string `toml:"thinking,omitempty"`
	DefaultThinking string   `toml:"default_thinking,omitempty"`
}

// ModelThinking is the thinking options and default of a model of h ("" = the default
// model), falling back to the harness's own.
func (h Harness) ModelThinking(modelID string) ([]string, string) {
	if modelID == "" {
		modelID = h.DefaultModel
	}
	for _, m := range h.Models {
		if m.ID == modelID && len(m.Thinking) > 0 {
			return m.Thinking, m.DefaultThinking
		}
	}
	return h.Thinking, h.DefaultThinking
}

func validateHarnessModels(name string, h Harness) error {
	bad := func(format string, args ...any) error {
		return model.Errorf(model.CodeInvalidArgument, "see `codexhost delegate --help` (HARNESS INSPECT) for the keys", "config: harness %q: "+format, append([]any{name}, args...)...)
	}
	var ids []string
	for _, m := range h.Models {
		if strings.TrimSpace(m.ID) == "" || slices.Contains(ids, m.ID) {
			return bad("a model has an empty or repeated id %q", m.ID)
		}
		ids = append(ids, m.ID)
		if m.DefaultThinking != "" && !slices.Contains(m.Thinking, m.DefaultThinking) {
			return bad("model %q: default_thinking %q is not one of its thinking options", m.ID, m.DefaultThinking)
		}
	}
	if h.DefaultModel != "" && !slices.Contains(ids, h.DefaultModel) {
		return bad("default_model %q is not one of its models", h.DefaultModel)
	}
	if h.DefaultThinking != "" && !slices.Contains(h.Thinking, h.DefaultThinking) {
		return bad("default_thinking %q is not one of its thinking options", h.DefaultThinking)
	}
	return nil
}
