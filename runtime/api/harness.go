package api

// MethodHarnessInspect describes one harness: its models, thinking options and capabilities.
const MethodHarnessInspect = "harness.inspect"

// HarnessInspectParams names the harness. Refresh asks the native harness's App Server
// again instead of answering from the catalog it listed before.
type HarnessInspectParams struct {
	Harness string `json:"harness"`
	Cwd     string `json:"cwd,omitempty"`
	Refresh bool   `json:"refresh,omitempty"`
}

// HarnessModel is one model a harness offers.
type HarnessModel struct {
	ID              string   `json:"id" doc:"the model id, as --model takes it"`
	Label           string   `json:"label" doc:"its display name"`
	Thinking        []string `json:"thinking" doc:"the thinking options --thinking takes with this model"`
	DefaultThinking string   `json:"defaultThinking,omitempty" doc:"the option used when --thinking is not given"`
	IsDefault       bool     `json:"isDefault" doc:"true for the model used when --model is not given"`
}

// Capabilities a harness reports.
const (
	CapabilityModels   = "models"   // --model chooses among Models
	CapabilityThinking = "thinking" // --thinking is accepted
	CapabilityRead     = "read"
	CapabilitySend     = "send"
	CapabilityCancel   = "cancel"
	CapabilityWatch    = "watch"
)

// HarnessInspectResult describes a harness.
type HarnessInspectResult struct {
	HarnessID       string         `json:"harnessId" doc:"the harness id"`
	Kind            string         `json:"kind" doc:"native or external"`
	Source          string         `json:"source" doc:"where the models come from: appServer (Codex's model/list) or config (config.toml)"`
	Cwd             string         `json:"cwd,omitempty" doc:"the --cwd the answer is for"`
	Models          []HarnessModel `json:"models" doc:"the models it offers (empty when it declares none)"`
	DefaultModel    string         `json:"defaultModel,omitempty" doc:"the model used when --model is not given"`
	Thinking        []string       `json:"thinking" doc:"the thinking options of the default model"`
	DefaultThinking string         `json:"defaultThinking,omitempty" doc:"the thinking option used when --thinking is not given"`
	Capabilities    []string       `json:"capabilities" doc:"what it supports: models, thinking, read, send, cancel, watch"`
}
