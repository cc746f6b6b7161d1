package threads

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/store"
)

// origin is the resolved caller of a delegation.
type origin struct {
	kind          string // model.OriginThread or model.OriginClient
	parent        model.ThreadID
	parentHarness string
	client        string
}

func (o origin) key() string {
	if o.kind == model.OriginThread {
		return "thread:" + string(o.parent)
	}
	return "client:" + o.client
}

// resolveCaller applies the caller rule: explicit parent thread, then the harness-provided
// thread id, then the one native thread with an active turn; through the client listener
// the caller is the client.
func (s *Service) resolveCaller(ctx context.Context, caller api.Caller, hint api.CallerHint) (origin, error) {
	for _, given := range []string{hint.ParentThread, hint.EnvThread} {
		if given == "" {
			continue
		}
		id, err := model.ParseThreadID(given)
		if err != nil {
			return origin{}, err
		}
		hs, err := s.Harness(ctx, id)
		if err != nil {
			return origin{}, err
		}
		return origin{kind: model.OriginThread, parent: id, parentHarness: hs.Name()}, nil
	}
	if caller.Kind == api.CallerClient {
		return origin{kind: model.OriginClient, client: caller.Client}, nil
	}
	active := s.deps.Harnesses.Native().Active()
	switch len(active) {
	case 1:
		return origin{kind: model.OriginThread, parent: active[0], parentHarness: model.NativeHarness}, nil
	case 0:
		return origin{}, model.Errorf(model.CodeFailedPrecondition, "pass --parent-thread <id> to name the delegating thread", "cannot tell which thread is calling: no thread id was given and no native thread has an active turn")
	}
	ids := make([]string, len(active))
	for i, id := range active {
		ids[i] = string(id)
	}
	return origin{}, model.Errorf(model.CodeParentThreadAmbiguous, "pass --parent-thread <id> with your own thread id", "several native threads have an active turn (%s), so the calling thread is ambiguous", strings.Join(ids, ", ")).WithDetail("activeThreads", ids)
}

// delegation is a checked delegate.start request, ready to run.
type delegation struct {
	p          api.DelegateStartParams
	hs         harness.Harness
	cwd        string
	org        origin
	refs       []string
	requestKey string
	dedupeKey  string
	paramsKey  string
}

// Delegate starts a child thread on a harness and records who delegated it, or returns the
// child of an earlier identical request.
func (s *Service) Delegate(ctx context.Context, caller api.Caller, p api.DelegateStartParams) (api.DelegateStartResult, error) {
	d, err := s.checkDelegation(ctx, caller, p)
	if err != nil {
		return api.DelegateStartResult{}, err
	}
	unlock := s.keyLocks.Lock(d.requestKey + d.dedupeKey)
	defer unlock()

	now := s.opts.Now()
	if e, found, err := s.deps.Store.Idempotent(d.requestKey, d.dedupeKey, now, s.opts.Config().DedupeWindow()); err != nil {
		return api.DelegateStartResult{}, err
	} else if found {
		if e.Params != "" && d.paramsKey != "" && e.Params != d.paramsKey {
			return api.DelegateStartResult{}, model.Errorf(model.CodeInvalidArgument,
				"use a new --request-id for a different delegation, or repeat the first request exactly",
				"request id %q was already used with other parameters (harness, task, model, thinking or cwd) for thread %s", p.RequestID, e.Thread).
				WithDetail("thread", string(e.Thread))
		}
		info, err := s.threadInfo(ctx, e.Thread)
		if err != nil {
			return api.DelegateStartResult{}, err
		}
		res := api.DelegateStartResult{Thread: info, DelegationID: e.Delegation, Existing: true}
		if res.DelegationID == "" {
			res.DelegationID = s.clientDelegationID(e.Thread)
		}
		res, err = s.watchChild(ctx, d.org, p, res)
		setPublicStart(&res, "")
		return res, err
	}
	res, turnID, err := s.startChild(ctx, d, now)
	if err != nil {
		return api.DelegateStartResult{}, err
	}
	res, err = s.watchChild(ctx, d.org, p, res)
	setPublicStart(&res, turnID)
	return res, err
}

// checkDelegation validates a request, resolves its caller, cwd and refs, and derives its
// idempotency key: the request id when given, else the task's dedupe key.
func (s *Service) checkDelegation(ctx context.Context, caller api.Caller, p api.DelegateStartParams) (delegation, error) {
	hs, ok := s.deps.Harnesses.Harness(p.Harness)
	if !ok {
		valid := s.deps.Harnesses.Names()
		return delegation{}, model.Errorf(model.CodeHarnessNotFound, "use one of: "+strings.Join(valid, ", "), "harness %q is not registered; valid harnesses: %s", p.Harness, strings.Join(valid, ", ")).WithDetail("harnesses", valid)
	}
	if err := CheckText("task", p.Task); err != nil {
		return delegation{}, err
	}
	if err := s.checkModel(ctx, p); err != nil {
		return delegation{}, err
	}
	if err := s.checkThinking(ctx, p); err != nil {
		return delegation{}, err
	}
	if p.WatchTimeoutMs < 0 || int64(p.WatchTimeoutMs) > int64(model.MaxWatchTimeout/time.Millisecond) {
		return delegation{}, model.Errorf(model.CodeInvalidArgument, "use --watch-timeout-ms between 1 and 604800000 (7 days); the default is 30 minutes", "watch timeout %d ms out of range", p.WatchTimeoutMs)
	}
	if p.WatchTimeoutMs > 0 && !p.Watch {
		// A window for no watch would be dropped without a word, and the caller not notified.
		return delegation{}, model.Errorf(model.CodeInvalidArgument, "add --watch true, or drop --watch-timeout-ms",
			"--watch-timeout-ms is the window of --watch, and no watch was asked for")
	}
	own, err := model.ValidateRefs(p.Refs)
	if err != nil {
		return delegation{}, err
	}
	d := delegation{p: p, hs: hs}
	if d.cwd, err = resolveCwd(p.Cwd, p.Caller.Cwd); err != nil {
		return delegation{}, err
	}
	if d.org, err = s.resolveCaller(ctx, caller, p.Caller); err != nil {
		return delegation{}, err
	}
	var inherited []string
	if d.org.kind == model.OriginThread {
		if o, err := s.deps.Store.Origin(d.org.parent); err == nil {
			inherited = o.Refs
		} else if !errors.Is(err, store.ErrNotFound) {
			return delegation{}, err
		}
	}
	if d.refs, err = model.MergeRefs(inherited, own); err != nil {
		return delegation{}, err
	}
	if p.RequestID != "" {
		if len(p.RequestID) > 256 {
			return delegation{}, model.Errorf(model.CodeInvalidArgument, "use a request id of at most 256 characters", "request id too long")
		}
		d.requestKey = store.RequestKey(d.org.key(), p.RequestID)
		d.paramsKey = store.ParamsKey(p.Harness, p.Task, p.Model, p.Thinking, d.cwd)
	} else {
		d.dedupeKey = model.DedupeKey(d.org.key(), p.Harness, p.Task)
	}
	return d, nil
}

// startChild runs a checked delegation: the child, its records and its first turn.
func (s *Service) startChild(ctx context.Context, d delegation, now time.Time) (api.DelegateStartResult, string, error) {
	p, org := d.p, d.org
	st, err := s.startChildTurn(ctx, Child{Harness: p.Harness, Cwd: d.cwd, Model: p.Model, Thinking: p.Thinking, Task: p.Task, Approval: p.Approval,
		Parent: org.parent, ParentHarness: org.parentHarness, Client: org.client, RequestID: p.RequestID, Refs: d.refs,
		RequestKey: d.requestKey, DedupeKey: d.dedupeKey, ParamsKey: d.paramsKey, At: now})
	child := st.thread
	var failed *ChildError
	switch {
	case errors.As(err, &failed) && failed.FirstTurn:
		return api.DelegateStartResult{}, "", model.Errorf(model.CodeDelegationFailed, "read the child with `codexhost thread read "+string(child)+"`", "the child thread %s was created but its first turn did not start: %v", child, failed.Err).WithDetail("thread", string(child))
	case errors.As(err, &failed):
		return api.DelegateStartResult{}, "", model.Errorf(model.CodeDelegationFailed, "check the harness with `codexhost harness list` and the runtime log", "start a thread on %s: %v", p.Harness, failed.Err)
	case err != nil:
		return api.DelegateStartResult{}, "", err
	}
	info, err := s.threadInfo(ctx, child)
	if err != nil {
		// The child exists and its turn started: report what is known rather than lose its id.
		fmt.Fprintf(s.opts.Log, "read new child %s: %v\n", child, err)
		info = model.ThreadInfo{ID: string(child), Link: child.Link(), Harness: p.Harness, Status: model.ThreadActive, Cwd: d.cwd, Model: p.Model, CreatedAt: now, UpdatedAt: now}
		s.Decorate(&info)
	}
	return api.DelegateStartResult{Thread: info, DelegationID: st.delegationID}, st.turnID, nil
}

// Child is a thread to start with a first turn, delegated by a thread (Parent) or a client;
// with neither it is the runtime's own (a task the runtime token started).
type Child struct {
	Harness    string // a registered harness
	Cwd, Model string
	Thinking   string // a thinking option of the harness (checked by the caller)
	Effort     string // the reasoning effort (harness.Efforts); "" for the harness's default
	// Approval is a native child's Codex approval policy; "" for the harness's.
	Approval string
	Task     string // the first turn's text
	// Parent is the delegating thread, on ParentHarness; "" when Client delegates.
	Parent        model.ThreadID
	ParentHarness string
	Client        string
	RequestID     string
	Refs          []string
	// RequestKey and DedupeKey make the start findable by an identical later request.
	RequestKey, DedupeKey string
	// ParamsKey identifies the request's parameters, so a request id reused with others is
	// refused.
	ParamsKey string
	// At is the time of the records; zero means when the harness started the thread.
	At time.Time
	// Policy starts the thread idle on the native harness under a task's own policy
	// (runtime/handoff): no first turn, and no narrowing to the author's (the handoff's
	// policy decides; a task is a leaf).
	Policy *harness.PolicyStart
	// Goal marks a goal thread (a handoff with acceptance criteria or test commands).
	Goal bool
}

// ChildError is a failed step of StartChild: the harness's start (no thread exists), or the
// first turn (the thread exists and is recorded, its delegation marked failed).
type ChildError struct {
	FirstTurn bool
	Thread    model.ThreadID
	Err       error
}

func (e *ChildError) Error() string {
	if e.FirstTurn {
		return fmt.Sprintf("the thread %s was created but its first turn did not start: %v", e.Thread, e.Err)
	}
	return fmt.Sprintf("start a thread: %v", e.Err)
}

func (e *ChildError) Unwrap() error { return e.Err }

// Started is what StartChild made.
type Started struct {
	Thread model.ThreadID
	// DelegationID is the delegation of a thread's child; "" for a client's thread.
	DelegationID string
	// Applied is the sandbox the App Server reports it applied to a policy start (its JSON).
	Applied string
}

// StartChild starts a thread, records it with its origin (and its delegation when a thread
// delegated it) in one write, and starts its first turn (none for a policy start).
func (s *Service) StartChild(ctx context.Context, c Child) (Started, error) {
	st, err := s.startChildTurn(ctx, c)
	out := Started{Thread: st.thread, DelegationID: st.delegationID, Applied: st.applied}
	if c.Parent == "" {
		out.DelegationID = "" // a client's start: its id is for the public CLI's output only
	}
	return out, err
}

// startedChild is what startChildTurn made: the thread, its delegation id (a client's start
// has one too, kept on its origin record), its first turn and a policy start's sandbox.
type startedChild struct {
	thread       model.ThreadID
	delegationID string
	turnID       string
	applied      string
}

func (s *Service) startChildTurn(ctx context.Context, c Child) (startedChild, error) {
	hs, ok := s.deps.Harnesses.Harness(c.Harness)
	if !ok {
		return startedChild{}, model.Errorf(model.CodeHarnessNotFound, "use one of: "+strings.Join(s.deps.Harnesses.Names(), ", "), "harness %q is not registered", c.Harness)
	}
	child, applied, err := s.startThread(ctx, c, hs)
	if err != nil {
		return startedChild{}, err
	}
	now := c.At
	if now.IsZero() {
		now = s.opts.Now()
	}
	st, err := s.recordChild(c, child, now)
	if err != nil {
		return startedChild{}, err
	}
	st.applied = applied
	if c.Policy != nil {
		return st, nil // a task's thread: the task starts its turn under its own policy
	}
	turnID, err := hs.Send(ctx, child, c.Task)
	if err != nil {
		_ = s.deps.Store.SetDelegationStatus(child, model.DelegationFailed, s.opts.Now())
		return st, &ChildError{FirstTurn: true, Thread: child, Err: err}
	}
	st.turnID = turnID
	return st, nil
}

// startThread starts the child's thread on hs: narrowed to its author's policy, or idle on
// the native harness under a task's own policy.
func (s *Service) startThread(ctx context.Context, c Child, hs harness.Harness) (model.ThreadID, string, error) {
	if c.Policy != nil {
		native, ok := hs.(*harness.Native)
		if !ok {
			return "", "", model.Errorf(model.CodeFailedPrecondition, "start a task on the native harness", "harness %q cannot start a thread under a task's policy", c.Harness)
		}
		id, applied, err := native.StartWithPolicy(ctx, *c.Policy)
		if err != nil {
			return "", "", &ChildError{Err: err}
		}
		return id, applied, nil
	}
	req := harness.StartRequest{Cwd: c.Cwd, Model: c.Model, Thinking: c.Thinking, Effort: c.Effort, Approval: c.Approval, Title: model.TaskTitle(c.Task)}
	if err := checkApproval(c.Approval, hs); err != nil {
		return "", "", err
	}
	if err := s.narrowToAuthor(c, hs, &req); err != nil {
		return "", "", err
	}
	child, err := hs.Start(ctx, req)
	if err != nil {
		return "", "", &ChildError{Err: err}
	}
	return child, "", nil
}

// recordChild writes the child's thread record with its origin and, when a thread delegated
// it, its delegation, in one write; a child of neither is the runtime's own, recorded alone.
func (s *Service) recordChild(c Child, child model.ThreadID, now time.Time) (startedChild, error) {
	thread := model.ThreadRecord{V: 1, ID: child, Harness: c.Harness, Cwd: c.Cwd, Model: c.Model, Goal: c.Goal, CreatedAt: now, UpdatedAt: now, RecencyAt: now}
	if c.Parent == "" && c.Client == "" {
		return startedChild{thread: child}, s.deps.Store.PutThread(thread)
	}
	kind := model.OriginClient
	if c.Parent != "" {
		kind = model.OriginThread
	}
	rec := store.NewDelegation{
		Origin:     model.Origin{V: 1, Thread: child, Kind: kind, ParentThread: c.Parent, Client: c.Client, RequestID: c.RequestID, Refs: c.Refs, CreatedAt: now},
		Thread:     thread,
		RequestKey: c.RequestKey,
		DedupeKey:  c.DedupeKey,
		ParamsKey:  c.ParamsKey,
	}
	id, err := uuid.NewV7()
	if err != nil {
		return startedChild{}, err
	}
	if kind == model.OriginClient {
		rec.Origin.ClientDelegationID = id.String()
	} else {
		rec.Delegation = &model.Delegation{V: 1, ID: id.String(), ParentThread: c.Parent, ChildThread: child, ParentHarness: c.ParentHarness, TargetHarness: c.Harness, Status: model.DelegationStarting, RequestID: c.RequestID, CreatedAt: now, UpdatedAt: now}
		rec.Origin.DelegationID = rec.Delegation.ID
	}
	if err := s.deps.Store.SaveDelegation(rec); err != nil {
		return startedChild{}, err
	}
	return startedChild{thread: child, delegationID: rec.Origin.DelegationID + rec.Origin.ClientDelegationID}, nil
}

// clientDelegationID is the delegation id of a client's start, from its origin record.
func (s *Service) clientDelegationID(child model.ThreadID) string {
	o, err := s.deps.Store.Origin(child)
	if err != nil {
		return ""
	}
	return o.ClientDelegationID
}

// watchChild registers, for `delegate start --watch true`, a watch on the child that
// notifies the resolved caller.
func (s *Service) watchChild(ctx context.Context, org origin, p api.DelegateStartParams, res api.DelegateStartResult) (api.DelegateStartResult, error) {
	if !p.Watch {
		return res, nil
	}
	notify := string(org.parent)
	if org.kind == model.OriginClient {
		notify = model.ClientRecipientPrefix + org.client
	}
	w, err := s.opts.Watch().Register(ctx, model.ThreadID(res.Thread.ID), notify, time.Duration(p.WatchTimeoutMs)*time.Millisecond)
	if err != nil {
		return res, err
	}
	res.Watch = &w
	return res, nil
}

// threadInfo reads a thread's metadata with its origin and refs.
func (s *Service) threadInfo(ctx context.Context, id model.ThreadID) (model.ThreadInfo, error) {
	hs, err := s.Harness(ctx, id)
	if err != nil {
		return model.ThreadInfo{}, err
	}
	snap, err := hs.Read(ctx, id, harness.ReadRequest{})
	if err != nil {
		return model.ThreadInfo{}, err
	}
	s.Decorate(&snap.Info)
	return snap.Info, nil
}

// resolveCwd picks the working directory of a new thread: --cwd, else the caller's.
func resolveCwd(given, callerCwd string) (string, error) {
	cwd := given
	if cwd == "" {
		cwd = callerCwd
	}
	if cwd == "" {
		return "", nil
	}
	if !filepath.IsAbs(cwd) {
		return "", model.Errorf(model.CodeInvalidArgument, "pass an absolute directory to --cwd", "cwd %q is not absolute", cwd)
	}
	st, err := os.Stat(cwd)
	if err != nil || !st.IsDir() {
		return "", model.Errorf(model.CodeInvalidArgument, "pass an existing directory to --cwd", "cwd %q is not a directory", cwd)
	}
	return filepath.Clean(cwd), nil
}

// checkApproval refuses an approval policy Codex does not know, or one asked of a harness
// that has none (an external command asks nobody).
func checkApproval(policy string, hs harness.Harness) error {
	if policy == "" {
		return nil
	}
	if !slices.Contains(model.ApprovalPolicies, policy) {
		return model.Errorf(model.CodeInvalidArgument, "use one of: "+strings.Join(model.ApprovalPolicies, ", "), "unknown approval policy %q", policy).WithDetail("field", "approval")
	}
	if hs.Kind() != model.HarnessNative {
		return model.Errorf(model.CodeInvalidArgument, "leave --approval out: only native Codex threads ask for approvals", "harness %s runs commands without asking", hs.Name()).WithDetail("field", "approval")
	}
	return nil
}
