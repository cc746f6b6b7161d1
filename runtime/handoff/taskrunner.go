package handoff

import (
	"context"
	"errors"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/threads"
)

// taskRunner runs tasks on the runtime's native Codex harness.
type taskRunner struct{ c *Capability }

// StartThread starts the task's thread through the thread capability, recorded as a
// codexhost thread of its caller (the client, or the agent's thread as its parent, with its
// refs), so that it lists, reads, follows the principal rules and shows in lineage like any
// other, and marker blocks know a goal thread.
func (r taskRunner) StartThread(ctx context.Context, s ThreadSpec) (model.ThreadID, string, error) {
	child := threads.Child{Harness: model.NativeHarness, Cwd: s.Cwd, Model: s.Model, Goal: s.Goal,
		Policy: &harness.PolicyStart{Cwd: s.Cwd, Model: s.Model, ModelProvider: s.ModelProvider, Approval: s.Approval, Sandbox: s.Sandbox, Config: s.Config, HideEnv: s.HideEnv, Title: s.Title}}
	switch {
	case s.Caller.Kind == api.CallerClient:
		child.Client = s.Caller.Client
	case s.Caller.Thread != "":
		r.parent(ctx, model.ThreadID(s.Caller.Thread), &child)
		if err := r.withinAuthor(child, s.Approval); err != nil {
			return "", "", err
		}
	}
	started, err := r.c.w.Threads.StartChild(ctx, child)
	var failed *threads.ChildError
	if errors.As(err, &failed) {
		err = failed.Err // the harness's own error: no thread was started
	}
	return started.Thread, started.Applied, err
}

// parent makes the agent's thread the task's parent, with the refs it carries; a thread no
// harness knows leaves the task the runtime's own, as a start by the runtime token is.
func (r taskRunner) parent(ctx context.Context, id model.ThreadID, child *threads.Child) {
	hs, err := r.c.w.Threads.Harness(ctx, id)
	if err != nil {
		r.c.logf("task of agent thread %s: its harness: %v", id, err)
		return
	}
	child.Parent, child.ParentHarness = id, hs.Name()
	if o, err := r.c.w.Store().Origin(id); err == nil {
		child.Refs = o.Refs
	}
}

// withinAuthor refuses a task of a native agent thread whose approval policy is wider than
// its author's: capability never widens through delegation (model.ApprovalWithin).
func (r taskRunner) withinAuthor(child threads.Child, approval string) error {
	if child.ParentHarness != model.NativeHarness || approval == model.ApprovalNever {
		return nil
	}
	pol, _ := r.c.w.Native().PolicyOf(child.Parent)
	author := pol.Approval
	if author == "" {
		author = model.ApprovalNever
	}
	if model.ApprovalWithin(approval, author) {
		return nil
	}
	return model.Errorf(model.CodePermissionDenied, "leave approval out, or ask for one within your own: never < untrusted < on-request",
		"thread %s runs under approval policy %q, narrower than %q", child.Parent, author, approval).WithDetail("authorApproval", author)
}

func (r taskRunner) StartTurn(ctx context.Context, id model.ThreadID, text string, policy map[string]any) (string, error) {
	return r.c.w.Native().SendWithPolicy(ctx, id, text, policy)
}

func (r taskRunner) Interrupt(ctx context.Context, id model.ThreadID) error {
	_, err := r.c.w.Native().Cancel(ctx, id)
	return err
}

func (r taskRunner) Messages(ctx context.Context, id model.ThreadID, limit int) ([]model.Message, error) {
	snap, err := r.c.w.Native().Read(ctx, id, harness.ReadRequest{Messages: true, Limit: limit})
	return snap.Messages, err
}
