package handoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/store"
)

// run is a task whose turn this runtime started and has not yet seen end.
type run struct {
	id      model.ThreadID
	handoff model.Handoff
	place   Place
	dir     *heldDir // the project directory, opened at the start: test commands run in it
	sandbox Sandbox
	before  snapshot
	ended   chan struct{} // closed when the turn ended
	done    chan struct{} // closed when its outcome is recorded
	quit    chan struct{} // closed when the service closes
	endOnce sync.Once

	mu        sync.Mutex
	cancelBy  string
	timedOut  bool
	quitOnce  sync.Once
	finishing bool
}

func (r *run) stop() { r.quitOnce.Do(func() { close(r.quit) }) }

// plan is a task resolved from its handoff and the current policy, before anything runs.
type plan struct {
	handoffID string
	handoff   model.Handoff
	place     Place
	provider  Provider
	timeout   time.Duration
	approval  string // the thread's approval policy, within [handoff] max_approval
}

func checkTimeout(ms int64) (time.Duration, error) {
	if ms == 0 {
		return model.DefaultTaskTimeout, nil
	}
	d := time.Duration(ms) * time.Millisecond
	if d < model.MinTaskTimeout || d > model.MaxTaskTimeout {
		return 0, model.Errorf(model.CodeInvalidArgument, "give timeoutMs from 1000 to 600000 (default 300000)", "timeoutMs %d is out of range", ms)
	}
	return d, nil
}

// Start starts a task from a handoff (or from the legacy direct fields, which make a handoff
// first). A task whose risk (the declared level raised to the floor of what it asks) is above
// what the caller may start at once waits as awaitingConfirmation, and the call fails with
// FAILED_PRECONDITION naming the task and why it waits.
func (s *Service) Start(ctx context.Context, caller api.Caller, p api.TaskStartParams) (api.TaskStartResult, error) {
	pl, err := s.plan(ctx, caller, p)
	if err != nil {
		return api.TaskStartResult{}, err
	}
	cfg := s.opts.Config()
	risk := AssessRisk(pl.handoff)
	held := holdReason(risk, autoStartLimit(cfg.Handoff, cfg, caller))
	// confirmHighRisk is the operator's (the route checks it) and confirms any hold.
	confirmed := held != "" && p.ConfirmHighRisk
	id, threadSandbox, applied, err := s.startThread(ctx, caller, pl)
	if err != nil {
		return api.TaskStartResult{}, err
	}
	now := s.opts.Now()
	rec := model.TaskRecord{V: 1, ID: id, HandoffID: pl.handoffID, Status: model.TaskAwaitingConfirmation, Risk: pl.handoff.RiskLevel, RiskFloor: risk.Floor,
		Held: held, Operations: slices.Clone(pl.handoff.AllowedOperations), Root: pl.place.Root, Sandbox: threadSandbox.Mode, Goal: pl.handoff.Goal(),
		Provider: pl.provider.Name, Approval: pl.approval, TimeoutMs: pl.timeout.Milliseconds(), StartedBy: CallerName(caller), CreatedAt: now, UpdatedAt: now}
	if held != "" && !confirmed {
		rec.Reason = held
	}
	if err := s.opts.Store.PutTask(rec); err != nil {
		return api.TaskStartResult{}, err
	}
	s.trace(TraceEntry{Event: "created", Task: id, Handoff: pl.handoffID, By: rec.StartedBy,
		Details: map[string]any{"risk": rec.Risk, "riskFloor": risk.Floor, "asks": risk.Asks, "operations": rec.Operations, "root": rec.Root,
			"sandbox": threadSandbox.Mode, "appliedSandbox": applied, "provider": pl.provider.Trace(), "approval": pl.approvalPolicy()}})
	if held != "" && !confirmed {
		return api.TaskStartResult{}, s.heldError(pl.handoffID, id, risk, held)
	}
	info, err := s.begin(ctx, pl, rec, CallerName(caller), confirmed)
	return api.TaskStartResult{Task: info}, err
}

// startThread starts a task's thread under its plan, without the network: a confirmed turn
// gets it from its own turn/start policy, so a thread held for confirmation has none.
func (s *Service) startThread(ctx context.Context, caller api.Caller, pl plan) (model.ThreadID, Sandbox, string, error) {
	threadSandbox := DeriveSandbox(pl.handoff, pl.place.Dir, false)
	// The thread never gets the network from thread/start: a confirmed turn gets it from its
	// own turn/start policy, so a thread held for confirmation has none.
	spec := ThreadSpec{Cwd: pl.place.Dir, Approval: pl.approvalPolicy(), Config: threadSandbox.threadConfig(s.hidden()), Goal: pl.handoff.Goal(), Caller: caller,
		Title: model.TaskTitle(pl.handoff.Title)}
	pl.provider.apply(&spec)
	id, applied, err := s.opts.Runner.StartThread(ctx, spec)
	return id, threadSandbox, applied, err
}

// heldError is the refusal of a start held for the operator, naming the task and why.
func (s *Service) heldError(hid string, id model.ThreadID, risk Risk, held string) error {
	s.trace(TraceEntry{Event: "awaitingConfirmation", Task: id, Handoff: hid, Decision: held})
	hint := "the operator confirms it with `codexhost task confirm " + string(id) + "` (or starts it with --confirm-high-risk)"
	var me *model.Error
	if risk.Declared == model.RiskHigh {
		me = model.Errorf(model.CodeFailedPrecondition, hint, "handoff %s is high risk: task %s waits as awaitingConfirmation for the operator", hid, id)
	} else {
		me = model.Errorf(model.CodeFailedPrecondition, hint+"; [handoff] auto_start_max_risk in config.toml sets what starts at once",
			"task %s of handoff %s waits as awaitingConfirmation for the operator: %s", id, hid, held)
	}
	return me.WithDetail("taskId", string(id)).WithDetail("status", model.TaskAwaitingConfirmation).
		WithDetail("declaredRisk", risk.Declared).WithDetail("riskFloor", risk.Floor).WithDetail("heldBecause", held)
}

// plan resolves the handoff, the policy, the provider and the timeout of a start.
func (s *Service) plan(ctx context.Context, caller api.Caller, p api.TaskStartParams) (plan, error) {
	timeout, err := checkTimeout(p.TimeoutMs)
	if err != nil {
		return plan{}, err
	}
	pol := s.policy()
	if err := checkApproval(pol, p.Approval); err != nil {
		return plan{}, err
	}
	provider, err := pickProvider(pol, p.Provider)
	if err != nil {
		return plan{}, err
	}
	if key := provider.Profile.EnvKey; key != "" && s.opts.ProviderKey != nil {
		if err := s.opts.ProviderKey(key); err != nil {
			return plan{}, err
		}
	}
	hid := p.HandoffID
	switch {
	case hid != "" && (p.Task != "" || p.ProjectPath != "" || p.Workspace != ""):
		return plan{}, model.Errorf(model.CodeInvalidArgument, "give handoffId alone, or task with projectPath or workspace", "handoffId and the direct task fields are exclusive")
	case hid == "":
		res, err := s.Create(ctx, caller, api.HandoffCreateParams{Handoff: legacyHandoff(p)})
		if err != nil {
			return plan{}, err
		}
		hid = res.HandoffID
	}
	_, h, _, err := s.load(hid)
	if err != nil {
		return plan{}, err
	}
	if err := s.refuseActive(hid); err != nil {
		return plan{}, err
	}
	// The tree may have changed since create: the check runs again.
	place, err := Resolve(pol, h)
	if err != nil {
		return plan{}, err
	}
	return plan{handoffID: hid, handoff: h, place: place, provider: provider, timeout: timeout, approval: approvalOrEmpty(p.Approval)}, nil
}

// checkApproval refuses an approval policy the operator does not allow tasks.
func checkApproval(pol config.Handoff, approval string) error {
	if approval == "" || approval == model.ApprovalNever {
		return nil
	}
	if !slices.Contains(model.ApprovalPolicies, approval) {
		return model.Errorf(model.CodeInvalidArgument, "give approval as "+strings.Join(model.ApprovalPolicies, ", ")+" (default never)", "unknown approval policy %q", approval).
			WithDetail("field", "approval")
	}
	if limit := pol.MaxApprovalOrNever(); !model.ApprovalWithin(approval, limit) {
		return model.Errorf(model.CodePermissionDenied, "leave approval out, or ask the user to raise max_approval under [handoff] in config.toml (never < untrusted < on-request)",
			"approval policy %q is wider than [handoff] max_approval %q", approval, limit).WithDetail("maxApproval", limit)
	}
	return nil
}

// approvalOrEmpty records never as "" (the default).
func approvalOrEmpty(a string) string {
	if a == model.ApprovalNever {
		return ""
	}
	return a
}

// approvalPolicy is thread/start's approvalPolicy of the plan.
func (pl plan) approvalPolicy() string {
	if pl.approval == "" {
		return model.ApprovalNever
	}
	return pl.approval
}

func pickProvider(pol config.Handoff, name string) (Provider, error) {
	if name == "" {
		return Provider{}, nil
	}
	prof, ok := pol.Providers[name]
	if !ok {
		var names []string
		for n := range pol.Providers {
			names = append(names, n)
		}
		slices.Sort(names)
		return Provider{}, model.Errorf(model.CodeInvalidArgument, "use a profile of [handoff.providers] ("+strings.Join(names, ", ")+")", "no provider profile %q", name)
	}
	return Provider{Name: name, Profile: prof}, nil
}

// legacyHandoff builds the handoff of a direct start: read and write at medium risk.
func legacyHandoff(p api.TaskStartParams) []byte {
	title := strings.TrimSpace(strings.SplitN(strings.TrimSpace(p.Task), "\n", 2)[0])
	if r := []rune(title); len(r) > model.MaxTitleChars {
		title = string(r[:model.MaxTitleChars-1]) + "…"
	}
	h := model.Handoff{Version: model.HandoffVersion, Title: title, Objective: p.Task, ProjectPath: p.ProjectPath, Workspace: p.Workspace,
		Constraints:       []string{"Operate only inside the approved project root."},
		AllowedOperations: []string{model.OpRead, model.OpWrite}, RiskLevel: model.RiskMedium}
	b, _ := jsonMarshal(h)
	return b
}

// refuseActive refuses a second task of a handoff while one is running or awaiting.
func (s *Service) refuseActive(hid string) error {
	var active model.ThreadID
	err := s.opts.Store.Tasks(func(t model.TaskRecord) error {
		if t.HandoffID == hid && !model.TaskTerminal(t.Status) {
			active = t.ID
			return store.StopScan
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.StopScan) {
		return err
	}
	if active != "" {
		return model.Errorf(model.CodeFailedPrecondition, "wait for it (`codexhost task status "+string(active)+"`) or cancel it (`codexhost task cancel "+string(active)+" --confirm`)",
			"handoff %s already has task %s running or awaiting confirmation", hid, active).WithDetail("taskId", string(active))
	}
	return nil
}

// begin starts the turn of a task: snapshot, prompt, sandbox, timeout.
func (s *Service) begin(ctx context.Context, pl plan, rec model.TaskRecord, by string, confirmed bool) (api.TaskInfo, error) {
	sb := DeriveSandbox(pl.handoff, pl.place.Dir, confirmed)
	now := s.opts.Now()
	held, err := holdDir(pl.place)
	if err != nil {
		s.failStart(rec.ID, err, now)
		return api.TaskInfo{}, err
	}
	r := &run{id: rec.ID, handoff: pl.handoff, place: pl.place, dir: held, sandbox: sb, before: takeSnapshot(pl.place.Dir), ended: make(chan struct{}), done: make(chan struct{}), quit: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		held.close()
		return api.TaskInfo{}, model.Errorf(model.CodeFailedPrecondition, "retry once the runtime runs again", "the runtime is shutting down")
	}
	s.runs[rec.ID] = r
	s.mu.Unlock()
	turnID, err := s.opts.Runner.StartTurn(ctx, rec.ID, Prompt(pl.handoff, pl.place, sb), sb.TurnPolicy())
	if err != nil {
		s.forget(rec.ID)
		held.close()
		s.failStart(rec.ID, err, now)
		return api.TaskInfo{}, err
	}
	updated, err := s.opts.Store.UpdateTask(rec.ID, func(t *model.TaskRecord) error {
		if t.Status == model.TaskAwaitingConfirmation {
			t.Status = model.TaskRunning
		}
		t.TurnID, t.Sandbox, t.Network, t.StartedAt, t.Deadline, t.UpdatedAt = turnID, sb.Mode, sb.Network, now, now.Add(pl.timeout), now
		if confirmed {
			t.ConfirmedBy = by
		}
		return nil
	})
	if err != nil {
		return api.TaskInfo{}, err
	}
	s.trace(TraceEntry{Event: "started", Task: rec.ID, Handoff: pl.handoffID, By: by, Decision: "sandbox " + sb.Mode,
		Details: map[string]any{"turnId": turnID, "network": sb.Network, "confirmed": confirmed, "timeoutMs": pl.timeout.Milliseconds()}})
	s.workers.Add(1)
	go s.watchTimeout(r, pl.timeout)
	return s.info(updated), nil
}

// failStart records a task whose turn did not start; the handoff is free for a new start.
func (s *Service) failStart(id model.ThreadID, err error, now time.Time) {
	_, _ = s.opts.Store.UpdateTask(id, func(t *model.TaskRecord) error {
		t.Status, t.Reason, t.EndedAt, t.UpdatedAt = model.TaskFailed, "the turn did not start: "+model.AsError(err).Message, now, now
		return nil
	})
}

func (s *Service) forget(id model.ThreadID) {
	s.mu.Lock()
	delete(s.runs, id)
	s.mu.Unlock()
}

// Confirm is the operator's confirmation of an awaiting task (ConfirmPolicy): it starts the
// turn, with the network the confirmation grants a high-risk one.
func (s *Service) Confirm(ctx context.Context, caller api.Caller, p api.TaskConfirmParams) (api.TaskStartResult, error) {
	rec, err := s.task(p.TaskID)
	if err != nil {
		return api.TaskStartResult{}, err
	}
	if rec.Status != model.TaskAwaitingConfirmation {
		return api.TaskStartResult{}, notAwaiting(rec.ID, rec.Status)
	}
	_, h, _, err := s.load(rec.HandoffID)
	if err != nil {
		return api.TaskStartResult{}, err
	}
	pol := s.policy()
	place, err := Resolve(pol, h)
	if err != nil {
		return api.TaskStartResult{}, err
	}
	provider, _ := pickProvider(pol, rec.Provider)
	if rec, err = s.claimAwaiting(rec.ID); err != nil {
		return api.TaskStartResult{}, err
	}
	s.trace(TraceEntry{Event: "confirmed", Task: rec.ID, Handoff: rec.HandoffID, By: CallerName(caller), Decision: "the operator confirmed the task", Details: map[string]any{"heldBecause": rec.Held, "network": h.RiskLevel == model.RiskHigh}})
	pl := plan{handoffID: rec.HandoffID, handoff: h, place: place, provider: provider, timeout: time.Duration(rec.TimeoutMs) * time.Millisecond, approval: rec.Approval}
	info, err := s.begin(ctx, pl, rec, CallerName(caller), true)
	if model.IsCode(err, model.CodeThreadNotFound) {
		return s.reopen(ctx, caller, rec, pl)
	}
	return api.TaskStartResult{Task: info}, err
}

// claimAwaiting moves an awaiting task to running in one store update, before its turn
// starts: of two confirmations at once only one starts a turn (the other's turn/start failed
// THREAD_BUSY and recorded the running task failed), and a cancel that comes later finds it
// running. The hold's reason goes with the hold.
func (s *Service) claimAwaiting(id model.ThreadID) (model.TaskRecord, error) {
	now := s.opts.Now()
	var was string
	rec, err := s.opts.Store.UpdateTask(id, func(t *model.TaskRecord) error {
		if was = t.Status; was != model.TaskAwaitingConfirmation {
			return errNotAwaiting
		}
		t.Status, t.Reason, t.UpdatedAt = model.TaskRunning, "", now
		return nil
	})
	if errors.Is(err, errNotAwaiting) {
		return rec, notAwaiting(id, was)
	}
	return rec, err
}

func notAwaiting(id model.ThreadID, status string) error {
	return model.Errorf(model.CodeFailedPrecondition, "only a task awaiting confirmation can be confirmed; read its status with `codexhost task status "+string(id)+"`",
		"task %s is %s", id, status).WithDetail("status", status)
}

var errNotAwaiting = errors.New("task is not awaiting confirmation")

func (s *Service) task(id string) (model.TaskRecord, error) {
	tid, err := model.ParseThreadID(id)
	if err != nil {
		return model.TaskRecord{}, err
	}
	rec, err := s.opts.Store.Task(tid)
	if errors.Is(err, store.ErrNotFound) {
		return rec, model.Errorf(model.CodeThreadNotFound, "list the tasks with `codexhost task status`", "no task %s", tid)
	}
	return rec, err
}

func (s *Service) logf(format string, args ...any) { fmt.Fprintf(s.opts.Log, format, args...) }
