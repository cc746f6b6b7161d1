package harness

import (
	"context"

	"github.com/codexhost/codexhost/runtime/appserver"
)

// thinkingConfig is the thread/start config override that sets a thread's reasoning effort.
func thinkingConfig(thinking string) map[string]any {
	if thinking == "" {
		return nil
	}
	return map[string]any{"model_reasoning_effort": thinking}
}

// Models lists the models of the App Server's own catalog (model/list).
func (n *Native) Models(ctx context.Context) ([]appserver.ModelInfo, error) {
	c, err := n.Client(ctx)
	if err != nil {
		return nil, err
	}
	models, err := c.AllModels(ctx)
	if err != nil {
		return nil, nativeMapErr(err, "")
	}
	return models, nil
}

// ConfiguredModel is the model Codex's configuration gives a thread started in cwd ("" when
// it names none): a thread runs it although the model catalog may not list it.
func (n *Native) ConfiguredModel(ctx context.Context, cwd string) (string, error) {
	c, err := n.Client(ctx)
	if err != nil {
		return "", err
	}
	cs, err := appserver.On(c).ConfigRead(ctx, cwd)
	if err != nil {
		return "", nativeMapErr(err, "")
	}
	return cs.Model, nil
}
