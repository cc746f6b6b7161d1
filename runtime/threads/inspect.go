package threads

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// nativeModels keeps the App Server's model catalog once listed: it is the bundled catalog
// of the Codex build, which changes only with the build (--refresh true asks again).
type nativeModels struct {
	mu     sync.Mutex
	models []api.HarnessModel
}

// HarnessInspect describes a harness: for the native one from its App Server's model/list,
// for external ones from config.toml.
func (s *Service) HarnessInspect(ctx context.Context, p api.HarnessInspectParams) (api.HarnessInspectResult, error) {
	hs, ok := s.deps.Harnesses.Harness(p.Harness)
	if !ok {
		return api.HarnessInspectResult{}, s.harnessNotFound(p.Harness)
	}
	cwd, err := resolveCwd(p.Cwd, "")
	if err != nil {
		return api.HarnessInspectResult{}, err
	}
	res := api.HarnessInspectResult{HarnessID: p.Harness, Kind: hs.Kind(), Cwd: cwd,
		Capabilities: []string{api.CapabilityRead, api.CapabilitySend, api.CapabilityCancel, api.CapabilityWatch}}
	if hs.Kind() == model.HarnessNative {
		res.Source = "appServer"
		if res.Models, err = s.nativeModelCatalog(ctx, p.Refresh); err != nil {
			return api.HarnessInspectResult{}, err
		}
	} else {
		res.Source = "config"
		res.Models = s.configModels(p.Harness)
	}
	for _, m := range res.Models {
		if m.IsDefault {
			res.DefaultModel, res.Thinking, res.DefaultThinking = m.ID, m.Thinking, m.DefaultThinking
		}
	}
	if hc, ok := s.opts.Config().Harnesses[p.Harness]; ok && res.DefaultModel == "" {
		res.Thinking, res.DefaultThinking = hc.Thinking, hc.DefaultThinking
	}
	if res.Thinking == nil {
		res.Thinking = []string{}
	}
	if len(res.Models) > 0 {
		res.Capabilities = append([]string{api.CapabilityModels}, res.Capabilities...)
	}
	if len(res.Thinking) > 0 || slices.ContainsFunc(res.Models, func(m api.HarnessModel) bool { return len(m.Thinking) > 0 }) {
		res.Capabilities = append([]string{api.CapabilityThinking}, res.Capabilities...)
	}
	return res, nil
}

func (s *Service) harnessNotFound(name string) error {
	valid := s.deps.Harnesses.Names()
	return model.Errorf(model.CodeHarnessNotFound, "use one of: "+strings.Join(valid, ", "), "harness %q is not registered; valid harnesses: %s", name, strings.Join(valid, ", ")).WithDetail("harnesses", valid)
}

func (s *Service) nativeModelCatalog(ctx context.Context, refresh bool) ([]api.HarnessModel, error) {
	s.models.mu.Lock()
	defer s.models.mu.Unlock()
	if s.models.models != nil && !refresh {
		return s.models.models, nil
	}
	listed, err := s.deps.Harnesses.Native().Models(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]api.HarnessModel, 0, len(listed))
	for _, m := range listed {
		if !m.Hidden {
			out = append(out, publicModel(m))
		}
	}
	s.models.models = out
	return out, nil
}

func publicModel(m appserver.ModelInfo) api.HarnessModel {
	hm := api.HarnessModel{ID: m.ID, Label: m.DisplayName, Thinking: []string{}, DefaultThinking: m.DefaultReasoningEffort, IsDefault: m.IsDefault}
	if hm.Label == "" {
		hm.Label = m.ID
	}
	for _, e := range m.SupportedReasoningEfforts {
		hm.Thinking = append(hm.Thinking, e.ReasoningEffort)
	}
	return hm
}

func (s *Service) configModels(name string) []api.HarnessModel {
	hc := s.opts.Config().Harnesses[name]
	out := []api.HarnessModel{}
	for _, m := range hc.Models {
		thinking, def := hc.ModelThinking(m.ID)
		hm := api.HarnessModel{ID: m.ID, Label: m.Label, Thinking: append([]string{}, thinking...), DefaultThinking: def, IsDefault: m.ID == hc.DefaultModel}
		if hm.Label == "" {
			hm.Label = m.ID
		}
		out = append(out, hm)
	}
	return out
}

// checkThinking refuses a --thinking option the harness does not offer for the chosen model.
func (s *Service) checkThinking(ctx context.Context, p api.DelegateStartParams) error {
	if p.Thinking == "" {
		return nil
	}
	info, err := s.HarnessInspect(ctx, api.HarnessInspectParams{Harness: p.Harness})
	if err != nil {
		return err
	}
	valid := info.Thinking
	if p.Model != "" {
		valid = nil
		for _, m := range info.Models {
			if m.ID == p.Model {
				valid = m.Thinking
			}
		}
		if valid == nil && len(info.Models) > 0 && info.Kind == model.HarnessNative {
			// A model outside Codex's catalog still runs (with fallback metadata): its
			// options are the default model's.
			valid = info.Thinking
		}
	}
	if slices.Contains(valid, p.Thinking) {
		return nil
	}
	if len(valid) == 0 {
		return model.Errorf(model.CodeInvalidArgument, "leave out --thinking; `codexhost harness inspect "+p.Harness+"` shows the options", "harness %s has no thinking options", p.Harness).WithDetail("thinking", []string{})
	}
	return model.Errorf(model.CodeInvalidArgument, "use one of: "+strings.Join(valid, ", "), "thinking option %q is not offered by %s; valid options: %s", p.Thinking, p.Harness, strings.Join(valid, ", ")).WithDetail("thinking", valid)
}

// checkModel refuses a --model the harness cannot run, before a thread starts: a native one
// runs the models of Codex's catalog and the one its configuration names (a custom provider's
// model is in no catalog); an external one with configured models runs those.
func (s *Service) checkModel(ctx context.Context, p api.DelegateStartParams) error {
	if p.Model == "" {
		return nil
	}
	hs, ok := s.deps.Harnesses.Harness(p.Harness)
	if !ok {
		return nil // the caller names the unknown harness
	}
	var valid []string
	if hs.Kind() == model.HarnessNative {
		native := s.deps.Harnesses.Native()
		listed, err := native.Models(ctx)
		if err != nil {
			return err
		}
		for _, m := range listed {
			valid = append(valid, m.ID)
		}
		cwd, _ := resolveCwd(p.Cwd, p.Caller.Cwd)
		if configured, err := native.ConfiguredModel(ctx, cwd); err == nil && configured != "" {
			valid = append(valid, configured)
		}
	} else {
		for _, m := range s.opts.Config().Harnesses[p.Harness].Models {
			valid = append(valid, m.ID)
		}
		if len(valid) == 0 {
			return nil // the command takes whatever model it is given
		}
	}
	if slices.Contains(valid, p.Model) {
		return nil
	}
	return model.Errorf(model.CodeInvalidArgument, "use one of: "+strings.Join(valid, ", ")+" (`codexhost harness inspect "+p.Harness+"`)",
		"model %q is not offered by %s", p.Model, p.Harness).WithDetail("models", valid)
}
