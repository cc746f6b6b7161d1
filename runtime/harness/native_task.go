package harness

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// PolicyStart creates a thread with its own sandbox, approval policy, model provider and
// per-thread configuration, for a task whose limits come from its handoff rather than from
// the harness's defaults.
type PolicyStart struct {
	Cwd           string
	Model         string
	ModelProvider string
	Approval      string
	Sandbox       string // read-only | workspace-write | danger-full-access
	Config        map[string]any
	// HideEnv names variables the thread's tool shells must not see (the provider's key).
	HideEnv []string
	// Title names the thread in Codex, as StartRequest.Title does.
	Title string
}

// StartWithPolicy creates an idle thread as Start does, with the given policy. It returns the
// sandbox the App Server reports it applied (its JSON), so the caller can record it.
func (n *Native) StartWithPolicy(ctx context.Context, req PolicyStart) (model.ThreadID, string, error) {
	c, err := n.Client(ctx)
	if err != nil {
		return "", "", err
	}
	res, err := c.ThreadStart(ctx, appserver.ThreadStartParams{
		Cwd:            req.Cwd,
		Model:          req.Model,
		ModelProvider:  req.ModelProvider,
		ApprovalPolicy: req.Approval,
		Sandbox:        req.Sandbox,
		// A task thread is a leaf: its shells get no runtime connection, and no secret.
		Config: withToolShell(req.Config, nil, append(append([]string(nil), n.opts.SecretEnv...), req.HideEnv...)),
	})
	if err != nil {
		var rpc *appserver.RPCError
		if errors.As(err, &rpc) {
			return "", "", model.Errorf(model.CodeFailedPrecondition, "check the project directory, the provider profile and the model name; the App Server log may say more",
				"Codex could not start the task's thread: %s", rpc.Message)
		}
		return "", "", nativeMapErr(err, "")
	}
	id := model.ThreadID(res.Thread.ID)
	n.name(ctx, c, id, req.Title)
	n.setPolicy(id, policyFrom(res.Sandbox, res.ApprovalPolicy))
	n.mu.Lock()
	if n.conn != nil && n.conn.c == c && n.threads[id] == nil {
		n.threads[id] = &nativeThread{status: nativeStatus(res.Thread.Status.Type)}
	}
	n.mu.Unlock()
	return id, sandboxType(res.Sandbox), nil
}

func sandboxType(raw json.RawMessage) string {
	var v struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &v) == nil && v.Type != "" {
		return v.Type
	}
	return string(raw)
}

// SendWithPolicy starts a turn as Send does, with a turn/start sandboxPolicy.
func (n *Native) SendWithPolicy(ctx context.Context, id model.ThreadID, text string, sandboxPolicy any) (string, error) {
	turnID, started, err := n.send(ctx, id, text, sandboxPolicy)
	if err != nil && !started {
		return "", NotStarted(err)
	}
	return turnID, err
}
