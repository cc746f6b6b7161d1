package e2e

import (
	"slices"
	"strings"
	"testing"
)

// harness inspect of the native harness comes from the App Server's own model list; of an
// external one from config.toml; --thinking is checked against it.
func TestHarnessInspectBothKindsAndBadInput(t *testing.T) {
	t.Parallel()
	h := startHost(t, hostConfig{harnesses: contractHarnesses, config: echoModels})
	tok := h.addClient("ci")

	var native struct {
		HarnessID, Kind, Source, DefaultModel, DefaultThinking string
		Thinking, Capabilities                                 []string
		Models                                                 []struct {
			ID, Label, DefaultThinking string
			Thinking                   []string
			IsDefault                  bool
		}
	}
	h.asClient(tok, "harness", "inspect", "codex", "--refresh", "true").decode(t, &native)
	if native.Kind != "native" || native.Source != "appServer" || len(native.Models) < 2 || native.DefaultModel == "" ||
		!slices.Contains(native.Capabilities, "thinking") || !slices.Contains(native.Capabilities, "models") {
		t.Fatalf("harness inspect codex: %+v", native)
	}
	for _, m := range native.Models {
		if m.ID == native.DefaultModel && (!m.IsDefault || !slices.Equal(m.Thinking, native.Thinking) || m.DefaultThinking != native.DefaultThinking || m.Label == "") {
			t.Errorf("default model %+v against %+v", m, native)
		}
	}
	if !slices.Contains(native.Thinking, "high") {
		t.Fatalf("the default Codex model has no high thinking option: %v", native.Thinking)
	}

	var ext struct {
		Kind, Source, DefaultModel string
		Models                     []struct {
			ID, Label string
			Thinking  []string
		}
		Capabilities []string
	}
	h.asClient(tok, "harness", "inspect", "echo").decode(t, &ext)
	if ext.Kind != "external" || ext.Source != "config" || len(ext.Models) != 2 || ext.Models[0].ID != "small" || ext.Models[0].Label != "Small model" ||
		!slices.Equal(ext.Models[0].Thinking, []string{"low", "high"}) || ext.Models[1].Label != "big" || !slices.Contains(ext.Capabilities, "thinking") {
		t.Errorf("harness inspect echo: %+v", ext)
	}

	// Bad input.
	e := h.asClient(tok, "harness", "inspect", "nope").failure(t)
	if e.Code != "HARNESS_NOT_FOUND" || !slices.Equal(anyStrings(e.Details["harnesses"]), []string{"codex", "echo", "failer", "sleeper", "slow"}) || !strings.Contains(e.Hint, "sleeper") {
		t.Errorf("inspect of an unknown harness: %+v", e)
	}
	e = h.asClient(tok, "delegate", "start", "--harness", "echo", "--model", "big", "--thinking", "low", "--task", "x").failure(t)
	if e.Code != "INVALID_ARGUMENT" || !slices.Equal(anyStrings(e.Details["thinking"]), []string{"high"}) || !strings.Contains(e.Hint, "high") {
		t.Errorf("--thinking low for a model with only high: %+v", e)
	}
	e = h.asClient(tok, "delegate", "start", "--harness", "codex", "--thinking", "enormous", "--task", "x").failure(t)
	if e.Code != "INVALID_ARGUMENT" || !slices.Equal(anyStrings(e.Details["thinking"]), native.Thinking) {
		t.Errorf("--thinking enormous on codex: %+v", e)
	}
	if e = h.asClient(tok, "delegate", "start", "--harness", "slow", "--thinking", "high", "--task", "x").failure(t); e.Code != "INVALID_ARGUMENT" {
		t.Errorf("--thinking on a harness without options: %+v", e)
	}
	for _, ms := range []string{"-1", "3600001", "99999999999999"} {
		if e := h.asClient(tok, "client", "events", "--follow", "--timeout-ms", ms).failure(t); e.Code != "INVALID_ARGUMENT" {
			t.Errorf("events wait of %s ms: %+v", ms, e)
		}
	}
	// A bounded wait with nothing to read returns, empty, once the time is up.
	if r := h.asClient(tok, "client", "events", "--follow", "--timeout-ms", "50"); r.code != 0 || r.stdout != "" {
		t.Errorf("an events wait that timed out: %s", r)
	}

	// A valid option is accepted and the thread runs.
	started := h.delegate(tok, "--harness", "codex", "--thinking", "high", "--task", "think hard")
	h.waitCompleted(tok, started.Thread.ID)
	var effort string
	for _, r := range h.fake.Requests() {
		if r.UserText == "think hard" {
			if rs, ok := r.JSON["reasoning"].(map[string]any); ok {
				effort, _ = rs["effort"].(string)
			}
		}
	}
	if effort != "high" {
		t.Errorf("the thread's request to the model has reasoning effort %q, want high", effort)
	}
}
