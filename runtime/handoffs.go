package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/handoff"
	"github.com/codexhost/codexhost/runtime/harness"
)

// handoffState is the handoff service of a Host, opened on the first handoff or task call
// (which is also when tasks cut off by a restart start reading interrupted).
type handoffState struct {
	once  sync.Once
	svc   *handoff.Service
	err   error
	stop  context.CancelFunc
	after func(time.Duration) <-chan time.Time // the timeout clock; tests inject one
}

func (h *Host) handoffService() (*handoff.Service, error) {
	st := &h.handoffs
	st.once.Do(func() {
		st.svc, st.err = handoff.New(handoff.Options{
			Home: h.opts.Home, Store: h.store, Runner: nativeTaskRunner{h.native}, Config: h.config,
			Tests: h.handoffTestEnv, Now: h.opts.Now, After: st.after, Log: h.opts.Log,
		})
		if st.err != nil {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		st.stop = cancel
		svc := st.svc
		h.Subscribe(ctx, func(ev api.Event) {
			if ev.Type == api.EventThreadStatus && ev.TurnStatus != "" {
				svc.OnTurnEnd(model.ThreadID(ev.Thread), ev.TurnStatus)
			}
		})
	})
	return st.svc, st.err
}

func (h *Host) closeHandoffs() {
	if h.handoffs.stop != nil {
		h.handoffs.stop()
		h.handoffs.svc.Close()
	}
}

// handleHandoff serves handoff.* and task.*. Policy: runtime callers and named clients (no
// operator scope needed) may create, list, show, start within the [handoff] policy, read
// status and results and cancel; confirming a high-risk task (task.confirm, or task.start
// with confirmHighRisk) is for the home's operator client only, checked by the service.
func (h *Host) handleHandoff(ctx context.Context, caller api.Caller, method string, params json.RawMessage) (any, error) {
	if caller.Kind != api.CallerRuntime && caller.Kind != api.CallerClient {
		return nil, model.Errorf(model.CodePermissionDenied, "use a runtime or client token", "%s callers may not use %s", caller.Kind, method)
	}
	svc, err := h.handoffService()
	if err != nil {
		return nil, err
	}
	switch method {
	case api.MethodHandoffCreate:
		return decodeCall(ctx, params, func(ctx context.Context, p api.HandoffCreateParams) (any, error) { return svc.Create(ctx, caller, p) })
	case api.MethodHandoffList:
		return decodeCall(ctx, params, func(ctx context.Context, p api.HandoffListParams) (any, error) { return svc.List(ctx, caller, p) })
	case api.MethodHandoffShow:
		return decodeCall(ctx, params, func(ctx context.Context, p api.HandoffShowParams) (any, error) { return svc.Show(ctx, caller, p) })
	case api.MethodTaskStart:
		return decodeCall(ctx, params, func(ctx context.Context, p api.TaskStartParams) (any, error) { return svc.Start(ctx, caller, p) })
	case api.MethodTaskStatus:
		return decodeCall(ctx, params, func(ctx context.Context, p api.TaskStatusParams) (any, error) { return svc.Status(ctx, caller, p) })
	case api.MethodTaskResult:
		return decodeCall(ctx, params, func(ctx context.Context, p api.TaskResultParams) (any, error) { return svc.Result(ctx, caller, p) })
	case api.MethodTaskCancel:
		return decodeCall(ctx, params, func(ctx context.Context, p api.TaskCancelParams) (any, error) { return svc.Cancel(ctx, caller, p) })
	case api.MethodTaskConfirm:
		return decodeCall(ctx, params, func(ctx context.Context, p api.TaskConfirmParams) (any, error) { return svc.Confirm(ctx, caller, p) })
	}
	return nil, fmt.Errorf("%w: %s", api.ErrUnknownMethod, method)
}

// handoffTestEnv is how codexhost runs test commands: under `codex sandbox`, with a minimal
// environment (PATH, HOME, LANG and the Codex home the sandbox tool needs).
func (h *Host) handoffTestEnv() (handoff.TestEnv, error) {
	lookup := envLookup(h.opts.Environ)
	bin, err := appserver.Locate(h.config().CodexBin, lookup)
	if err != nil {
		return handoff.TestEnv{}, err
	}
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "LANG", "CODEX_HOME"} {
		if v := lookup(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return handoff.TestEnv{CodexBin: bin, Env: env}, nil
}

// nativeTaskRunner runs tasks on the native Codex harness.
type nativeTaskRunner struct{ n *harness.Native }

func (r nativeTaskRunner) StartThread(ctx context.Context, s handoff.ThreadSpec) (model.ThreadID, string, error) {
	return r.n.StartWithPolicy(ctx, harness.PolicyStart{Cwd: s.Cwd, Model: s.Model, ModelProvider: s.ModelProvider, Approval: s.Approval, Sandbox: s.Sandbox, Config: s.Config})
}

func (r nativeTaskRunner) StartTurn(ctx context.Context, id model.ThreadID, text string, policy map[string]any) (string, error) {
	return r.n.SendWithPolicy(ctx, id, text, policy)
}

func (r nativeTaskRunner) Interrupt(ctx context.Context, id model.ThreadID) error {
	_, err := r.n.Cancel(ctx, id)
	return err
}

func (r nativeTaskRunner) Messages(ctx context.Context, id model.ThreadID, limit int) ([]model.Message, error) {
	snap, err := r.n.Read(ctx, id, harness.ReadRequest{Messages: true, Limit: limit})
	return snap.Messages, err
}
