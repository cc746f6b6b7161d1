package marker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/google/uuid"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
	"github.com/codexhost/codexhost/runtime/harness"
	"github.com/codexhost/codexhost/runtime/threads"
)

// hostThreads is the engine's view of the runtime's threads (the Threads of its Options).
type hostThreads struct{ s *Service }

func (t hostThreads) harnessOf(ctx context.Context, id string) (model.ThreadID, harness.Harness, error) {
	tid, err := model.ParseThreadID(id)
	if err != nil {
		return "", nil, model.Errorf(model.CodeThreadNotFound, "name a thread by its id", "no thread %q", id)
	}
	hs, err := t.s.opts.Threads.Harness(ctx, tid)
	return tid, hs, err
}

// Facts reads what the gates need: project, principal, parent, goal and turn state.
func (t hostThreads) Facts(ctx context.Context, id string) (Facts, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return Facts{}, err
	}
	snap, err := hs.Read(ctx, tid, harness.ReadRequest{})
	if err != nil {
		return Facts{}, err
	}
	f := Facts{ID: string(tid), Harness: hs.Name(), Cwd: snap.Info.Cwd, Running: threads.Running(snap.Info), Principal: t.principal(tid)}
	if f.Cwd == "" {
		if rec, err := t.s.deps.Store.Thread(tid); err == nil {
			f.Cwd = rec.Cwd
		}
	}
	f.Project = Project(ctx, f.Cwd)
	if snap.Info.LastTurn != nil {
		f.LastTurnStatus = snap.Info.LastTurn.Status
	}
	if o, err := t.s.deps.Store.Origin(tid); err == nil {
		f.Parent = string(o.ParentThread)
	}
	if rec, err := t.s.deps.Store.Thread(tid); err == nil {
		f.Goal = rec.Goal
	}
	if c, err := t.s.deps.Store.MarkerChild(tid); err == nil {
		f.MarkerCreated = true
		if _, statErr := os.Stat(f.Cwd); c.Repo != "" && statErr != nil {
			f.Project = c.Repo // its worktree was pruned: it stays in its repository's project
		}
	}
	f.Leaf = t.s.isHandoffTask(tid)
	return f, nil
}

// principal is who a thread acts for in the marker gates: the client of its principal
// (threads.PrincipalOf), else the operator (threads started at this runtime's terminal or CLI,
// their delegation trees, and sessions codexhost did not start).
func (t hostThreads) principal(id model.ThreadID) string {
	if p, ok, err := t.s.opts.Threads.PrincipalOf(id); err == nil && ok && strings.HasPrefix(p, model.ClientRecipientPrefix) {
		return p
	}
	return principalOperator
}

// View is a report snapshot of one thread.
func (t hostThreads) View(ctx context.Context, id string, chars int) (ThreadView, bool, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return ThreadView{}, false, err
	}
	snap, err := hs.Read(ctx, tid, harness.ReadRequest{})
	if err != nil {
		return ThreadView{}, false, err
	}
	// The report is read by agents: the public status words, as thread read prints them.
	v := ThreadView{ID: string(tid), Status: model.PublicStatus(snap.Info)}
	if lt := snap.Info.LastTurn; lt != nil {
		v.TurnID, v.TurnStatus = lt.ID, model.PublicTurnStatus(lt.Status)
	}
	if r := snap.Result; r != nil {
		v.Result = Tail(r.Text, chars)
	}
	return v, threads.Running(snap.Info), nil
}

// Create starts a thread whose delegation parent is the author (no shared history or
// lifetime): the author's principal, its own worktree when the author's cwd is in a git work
// tree, and the block's prompt as first turn.
func (t hostThreads) Create(ctx context.Context, author Facts, c Create) (Created, error) {
	name, err := t.createHarness(author, c)
	if err != nil {
		return Created{}, err
	}
	out := Created{Harness: name, Cwd: author.Cwd}
	cwd := author.Cwd
	if _, ok := GitTop(ctx, author.Cwd); ok {
		wtName, err := uuid.NewV7()
		if err != nil {
			return Created{}, err
		}
		wt, err := AddWorktree(ctx, author.Cwd, t.s.worktreeRoot(), wtName.String())
		switch {
		case errors.Is(err, ErrNoCommit):
			// Nothing to branch from: the thread shares the cwd, as outside git.
			out.Shared = ErrNoCommit.Error()
		case err != nil:
			return Created{}, err
		default:
			out.Repo, out.Worktree, out.Branch, out.Cwd, cwd = wt.Repo, wt.Path, wt.Branch, wt.Cwd, wt.Cwd
		}
	}
	parent := model.ThreadID(author.ID)
	var refs []string
	if o, err := t.s.deps.Store.Origin(parent); err == nil {
		refs = o.Refs
	}
	started, err := t.s.opts.Threads.StartChild(ctx, threads.Child{Harness: name, Cwd: cwd, Model: c.Model, Effort: c.Effort, Approval: c.Approval, Task: c.Prompt,
		Parent: parent, ParentHarness: author.Harness, Refs: refs})
	child := started.Thread
	var failed *threads.ChildError
	switch {
	case errors.As(err, &failed) && failed.FirstTurn:
		out.ID = string(child)
		return out, fmt.Errorf("the thread %s was created but its first turn did not start: %w", child, failed.Err)
	case err != nil:
		if out.Worktree != "" {
			// No thread owns the worktree: it goes now rather than never.
			RemoveWorktree(ctx, out.Repo, out.Worktree, out.Branch, false)
		}
		if errors.As(err, &failed) {
			return Created{}, failed.Err
		}
		return Created{}, err
	}
	out.ID = string(child)
	return out, nil
}

// createHarness picks the harness of a created thread: `harness`, else the executor (local:
// the author's harness; docker and cloud: [markers.executors]), else the author's.
func (t hostThreads) createHarness(author Facts, c Create) (string, error) {
	name := c.Harness
	switch {
	case name != "":
	case c.Executor == "docker" || c.Executor == "cloud":
		mapped, ok := t.s.opts.Config().Markers.Executors[c.Executor]
		if !ok {
			return "", model.Errorf(model.CodeFailedPrecondition, "map it in [markers.executors] of config.toml", "the executor %s is not mapped to a harness here", c.Executor)
		}
		name = mapped
	default:
		name = author.Harness
	}
	if _, ok := t.s.deps.Harnesses.Harness(name); !ok {
		return "", model.Errorf(model.CodeFailedPrecondition, "use one of: "+strings.Join(t.s.deps.Harnesses.Names(), ", "), "harness %q is not registered", name)
	}
	return name, nil
}

// Cancel stops the running turn through the harness's cancel path.
func (t hostThreads) Cancel(ctx context.Context, id string) (string, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return "", err
	}
	return hs.Cancel(ctx, tid)
}

// Retry starts a new turn with the last turn's user message; the thread keeps its model.
func (t hostThreads) Retry(ctx context.Context, id string) (string, error) {
	tid, hs, err := t.harnessOf(ctx, id)
	if err != nil {
		return "", err
	}
	snap, err := hs.Read(ctx, tid, harness.ReadRequest{Messages: true, Limit: model.MaxPageLimit})
	if err != nil {
		return "", err
	}
	if snap.Info.LastTurn == nil {
		return "", model.Errorf(model.CodeFailedPrecondition, "retry a thread that ran a turn", "the thread has no turn")
	}
	last := snap.Info.LastTurn.ID
	for i := len(snap.Messages) - 1; i >= 0; i-- {
		if m := snap.Messages[i]; m.TurnID == last && m.Role == model.RoleUser {
			return hs.Send(ctx, tid, m.Text)
		}
	}
	return "", model.Errorf(model.CodeFailedPrecondition, "send the thread a new message instead", "the last turn's user message was not found")
}

// Permission: the operator may cancel and retry; a configured client may cancel (it may start
// threads) and retry only with the grant; an unknown client is a failed lookup.
func (t hostThreads) Permission(principal string, tool Tool) Permission {
	if principal == principalOperator {
		return Permission{Allowed: true}
	}
	client, ok := strings.CutPrefix(principal, model.ClientRecipientPrefix)
	if !ok {
		return Permission{LookupFailed: true}
	}
	if client == config.OperatorClient {
		return Permission{Allowed: true} // the home's own operator client
	}
	cfg := t.s.opts.Config()
	if _, known := cfg.Clients[client]; !known {
		return Permission{LookupFailed: true}
	}
	if tool == ToolRetry {
		return Permission{Allowed: cfg.Markers.MayRetry(client)}
	}
	return Permission{Allowed: true}
}

// ActiveThreads counts the principal's threads with a running turn.
func (t hostThreads) ActiveThreads(_ context.Context, principal string) (int, error) {
	n := 0
	reg := t.s.deps.Harnesses
	for _, name := range reg.Names() {
		hs, ok := reg.Harness(name)
		if !ok {
			continue
		}
		for _, id := range hs.Active() {
			if t.principal(id) == principal {
				n++
			}
		}
	}
	return n, nil
}
