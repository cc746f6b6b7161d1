package runtime

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/handoff"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/route"
	"github.com/codexhost/codexhost/store"
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
			Home: h.opts.Home, Store: h.store, Runner: nativeTaskRunner{h: h, n: h.native}, Config: h.config,
			Tests: h.handoffTestEnv, Hidden: h.secretDirs, ProviderKey: h.providerKeyReady, Now: h.opts.Now, After: st.after, Log: h.opts.Log,
			Ended: func(task model.ThreadID, status string) {
				h.publish(api.Event{Type: api.EventTaskStatus, Thread: string(task), Status: status})
			},
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

// handoffRoutes are handoff.* and task.*: agents and named clients (no operator scope
// needed) create, list, show and start within the [handoff] policy, read status and results
// and cancel; confirming a high-risk task (task.confirm, or task.start with confirmHighRisk)
// is for the home's operator client only. skill.* (route, read, bundle over the approved
// skill roots) are open like handoff.create, which routes the same skills.
func (h *Host) handoffRoutes() []route.Route {
	return []route.Route{
		handoffRoute(h, api.MethodHandoffCreate, route.Everyone, nil, byCaller((*handoff.Service).Create)),
		handoffRoute(h, api.MethodHandoffList, route.Everyone, nil, ownedBy((*handoff.Service).List)),
		handoffRoute(h, api.MethodHandoffShow, route.Everyone, nil, byCaller((*handoff.Service).Show)),
		handoffRoute(h, api.MethodTaskStart, route.Everyone, h.taskStartPolicy, byCaller((*handoff.Service).Start)),
		handoffRoute(h, api.MethodTaskStatus, route.Everyone, nil, ownedBy((*handoff.Service).Status)),
		handoffRoute(h, api.MethodTaskResult, route.Everyone, nil, byCaller((*handoff.Service).Result)),
		handoffRoute(h, api.MethodTaskCancel, route.Everyone, h.taskCancelPolicy, byCaller((*handoff.Service).Cancel)),
		handoffRoute(h, api.MethodTaskConfirm, confirmPolicy, nil, byCaller((*handoff.Service).Confirm)),
		handoffRoute(h, api.MethodSkillRoute, route.Everyone, nil, byCaller((*handoff.Service).SkillRoute)),
		handoffRoute(h, api.MethodSkillRead, route.Everyone, nil, byCaller((*handoff.Service).SkillRead)),
		handoffRoute(h, api.MethodSkillBundle, route.Everyone, nil, byCaller((*handoff.Service).SkillBundle)),
	}
}

// ownedBy narrows a listing to the caller's own handoffs or tasks, as thread list does: a
// client without operator.read learns only of what it made (the handler gets the owner to
// keep; "" keeps all). An id given to task status or handoff show is shown to anyone.
func ownedBy[P, R any](fn func(*handoff.Service, context.Context, api.Caller, P, string) (R, error)) func(*handoff.Service, context.Context, route.Env, P) (R, error) {
	return func(svc *handoff.Service, ctx context.Context, env route.Env, p P) (R, error) {
		owner := ""
		if env.Caller.Kind == api.CallerClient && !env.Grant().Has(config.ScopeRead) {
			owner = handoff.CallerName(env.Caller)
		}
		return fn(svc, ctx, env.Caller, p, owner)
	}
}

// otherOwnerPolicy: cancelling a task another client started, as for its thread.
var otherOwnerPolicy = &route.Policy{Agents: &route.AgentRule{}, Clients: &route.ClientRule{Scope: config.ScopeWrite}}

// taskCancelPolicy: a client cancels its own tasks; another's need operator.write.
func (h *Host) taskCancelPolicy(_ context.Context, env route.Env, p api.TaskCancelParams) (*route.Policy, error) {
	if env.Caller.Kind != api.CallerClient {
		return nil, nil
	}
	svc, err := h.handoffService()
	if err != nil {
		return nil, err
	}
	owner, err := svc.TaskOwner(p.TaskID)
	if err != nil || owner == handoff.CallerName(env.Caller) {
		return nil, nil // the handler names an unknown task
	}
	return otherOwnerPolicy, nil
}

// confirmPolicy: the operator confirms a high-risk task at the keyboard.
var confirmPolicy = &route.Policy{Clients: &route.ClientRule{}, OperatorOnly: true,
	Hint: "a high-risk task is confirmed by the operator: `codexhost task confirm ID` or `codexhost task start --confirm-high-risk`"}

// taskStartPolicy: confirming high risk is the operator's; starting a handoff another client
// created is naming another principal's work, so it needs operator.write (agents start only
// what agents made).
func (h *Host) taskStartPolicy(_ context.Context, env route.Env, p api.TaskStartParams) (*route.Policy, error) {
	if p.ConfirmHighRisk {
		return confirmPolicy, nil
	}
	if p.HandoffID == "" || (env.Caller.Kind == api.CallerRuntime && env.Caller.Thread == "" && !env.Caller.Unbound) {
		return nil, nil
	}
	svc, err := h.handoffService()
	if err != nil {
		return nil, err
	}
	owner, err := svc.HandoffOwner(p.HandoffID)
	if err != nil || owner == handoff.CallerName(env.Caller) {
		return nil, nil // the handler names an unknown handoff
	}
	return otherHandoffPolicy, nil
}

// otherHandoffPolicy: a handoff someone else created.
var otherHandoffPolicy = &route.Policy{Clients: &route.ClientRule{Scope: config.ScopeWrite},
	AgentHint: "an agent starts only the handoffs made from inside codexhost", Hint: "start your own handoff (`codexhost handoff create`); another client's needs operator.write"}

// handoffRoute serves one method of the handoff service, opened on first use.
func handoffRoute[P, R any](h *Host, method string, pol *route.Policy, escalate func(context.Context, route.Env, P) (*route.Policy, error),
	fn func(*handoff.Service, context.Context, route.Env, P) (R, error)) route.Route {
	return route.Spec[P]{Method: method, Policy: pol, Escalate: escalate,
		Call: func(ctx context.Context, env route.Env, p P) (any, error) {
			svc, err := h.handoffService()
			if err != nil {
				return nil, err
			}
			return fn(svc, ctx, env, p)
		}}.Route()
}

// byCaller adapts a service method that needs only the caller.
func byCaller[P, R any](fn func(*handoff.Service, context.Context, api.Caller, P) (R, error)) func(*handoff.Service, context.Context, route.Env, P) (R, error) {
	return func(svc *handoff.Service, ctx context.Context, env route.Env, p P) (R, error) {
		return fn(svc, ctx, env.Caller, p)
	}
}

// handoffTestEnv is how codexhost runs test commands: inside bubblewrap (the copy the Codex
// install ships, else bwrap on PATH) with a minimal environment (PATH, HOME, LANG), the
// codexhost home and every Codex home hidden.
func (h *Host) handoffTestEnv() (handoff.TestEnv, error) {
	lookup := envLookup(h.opts.Environ)
	cfg := h.config()
	bin, _ := appserver.Locate(h.codexSearch(cfg.CodexBin, lookup))
	bwrap, err := handoff.LocateBwrap(bin, func(name string) (string, error) { return lookPathIn(lookup("PATH"), name) })
	if err != nil {
		return handoff.TestEnv{}, err
	}
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "LANG"} {
		if v := lookup(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return handoff.TestEnv{Bwrap: bwrap, Env: env, Hide: h.secretDirs()}, nil
}

// secretDirs are the directories no task reads: the codexhost home (tokens, config.toml,
// catalog.key, the store, histories, every client's handoff files) and every Codex home
// (auth.json).
func (h *Host) secretDirs() []string {
	return append([]string{h.opts.Home, defaultCodexHome(envLookup(h.opts.Environ))}, h.config().Catalog.CodexHomes...)
}

// providerKeyReady says whether the native App Server has a provider profile's key: it was in
// the runtime's environment, and the profile was configured, when the App Server started.
func (h *Host) providerKeyReady(name string) error {
	if envLookup(h.opts.Environ)(name) == "" {
		return model.Errorf(model.CodeFailedPrecondition, "set "+name+" in the environment of `codexhost serve` (or of the terminal app) and start it again; the App Server reads the key from there",
			"the provider profile's env_key %s is not set in the runtime's environment", name)
	}
	if envLookup(h.nativeEnv)(name) == "" {
		return model.Errorf(model.CodeFailedPrecondition, "restart the runtime (`codexhost serve`) so that its App Server starts with "+name,
			"the App Server started before a provider profile named env_key %s", name)
	}
	return nil
}

// lookPathIn finds an executable in a PATH value (the runtime's environment, not the process's).
func lookPathIn(path, name string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 && filepath.IsAbs(p) {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// nativeTaskRunner runs tasks on the native Codex harness.
type nativeTaskRunner struct {
	h *Host
	n *harness.Native
}

// StartThread starts the task's thread and registers it as a codexhost thread of its
// caller, so that it lists, reads and follows the principal rules like any other, and
// marker blocks know a goal thread.
func (r nativeTaskRunner) StartThread(ctx context.Context, s handoff.ThreadSpec) (model.ThreadID, string, error) {
	id, applied, err := r.n.StartWithPolicy(ctx, harness.PolicyStart{Cwd: s.Cwd, Model: s.Model, ModelProvider: s.ModelProvider, Approval: s.Approval, Sandbox: s.Sandbox, Config: s.Config, HideEnv: s.HideEnv, Title: s.Title})
	if err != nil {
		return id, applied, err
	}
	now := r.h.opts.Now()
	rec := model.ThreadRecord{V: 1, ID: id, Harness: model.NativeHarness, Cwd: s.Cwd, Model: s.Model, Goal: s.Goal, CreatedAt: now, UpdatedAt: now, RecencyAt: now}
	if s.Caller.Kind != api.CallerClient {
		return id, applied, r.h.store.PutThread(rec)
	}
	origin := model.Origin{V: 1, Thread: id, Kind: model.OriginClient, Client: s.Caller.Client, CreatedAt: now}
	return id, applied, r.h.store.SaveDelegation(store.NewDelegation{Origin: origin, Thread: rec})
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
