package supervise

import (
	"context"
	"strconv"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/harness"
)

// threadView is the Harness view of supervised threads; every id it gets is a supervised
// thread's, mapped to its canonical thread once bound.
type threadView struct{ s *Service }

var _ harness.Harness = threadView{}

func (v threadView) Name() string { return model.NativeHarness }
func (v threadView) Kind() string { return model.HarnessNative }

// Start is never used: supervised threads are made by continue.
func (v threadView) Start(context.Context, harness.StartRequest) (model.ThreadID, error) {
	return "", model.Errorf(model.CodeInvalidArgument, "use `codexhost continue`", "supervised threads are made by continue")
}

// load reads the binding and, unless only a pending branch's own files are needed, the
// harness of its host.
func (v threadView) load(id model.ThreadID, needHarness bool) (model.Supervision, *harness.Native, error) {
	sup, ok, err := v.s.branches.Supervision(id)
	if err != nil {
		return sup, nil, err
	}
	if !ok {
		return sup, nil, threadNotFound(id)
	}
	if sup.Binding == model.BindingNodeSession || (!needHarness && sup.State == model.SupervisionPending) {
		return sup, nil, nil // a node's thread runs on the node, through the catalog
	}
	n, err := v.s.harnessOf(sup.Host)
	return sup, n, err
}

// Send runs a turn on the canonical thread, creating it first when the branch is pending.
// Nothing ever falls back to another thread or harness: every failure fails the send.
func (v threadView) Send(ctx context.Context, id model.ThreadID, text string) (string, error) {
	if strings.TrimSpace(text) == "" {
		return "", harness.NotStarted(model.Errorf(model.CodeInvalidArgument, "give the message text", "the message is empty"))
	}
	sup, n, err := v.load(id, true)
	if err != nil {
		return "", harness.NotStarted(err)
	}
	if sup.Binding == model.BindingNodeSession {
		return v.s.nodeSend(sup, text)
	}
	if sup.State == model.SupervisionPending {
		// One first send at a time; a second one finds the thread bound.
		unlock := v.s.firstSends.Lock(string(id))
		defer unlock()
		if sup, n, err = v.load(id, true); err != nil {
			return "", harness.NotStarted(err)
		}
		if sup.State == model.SupervisionPending {
			c, err := n.Client(ctx)
			if err != nil {
				return "", harness.NotStarted(err)
			}
			if sup, err = v.s.branches.Pin(ctx, c, sup); err != nil {
				return "", harness.NotStarted(err)
			}
		}
	}
	if sup.Canonical == "" {
		return "", harness.NotStarted(model.Errorf(model.CodeInternal, "report this", "supervised thread %s is %s without a canonical thread", id, sup.State))
	}
	return n.Send(ctx, sup.Canonical, text)
}

// Cancel interrupts the canonical thread's turn; a pending branch has none.
func (v threadView) Cancel(ctx context.Context, id model.ThreadID) (string, error) {
	sup, n, err := v.load(id, false)
	if err != nil {
		return "", err
	}
	if sup.Binding == model.BindingNodeSession {
		return "", model.Errorf(model.CodeFailedPrecondition, "a turn resumed on a node runs to its end; stop it on the node if you must",
			"thread %s is bound to a paired node's thread; interrupting is not offered there", id)
	}
	if sup.Canonical == "" {
		return "", model.Errorf(model.CodeFailedPrecondition, "nothing to cancel; its first send starts its first turn", "supervised thread %s has no turn yet", id)
	}
	return n.Cancel(ctx, sup.Canonical)
}

// Read shows a pending branch as an idle thread with the history it carries, and a bound one
// as its canonical thread under the supervised id, its messages followed by that history.
func (v threadView) Read(ctx context.Context, id model.ThreadID, req harness.ReadRequest) (harness.Snapshot, error) {
	sup, n, err := v.load(id, false)
	if err != nil {
		return harness.Snapshot{}, err
	}
	if sup.Binding == model.BindingNodeSession {
		snap, err := v.s.nodeRead(ctx, sup, req)
		snap.Info.ID, snap.Info.Link, snap.Info.Harness = string(id), id.Link(), model.NativeHarness
		return snap, err
	}
	mirror := req.Messages && strings.HasPrefix(req.Cursor, mirrorCursor)
	var snap harness.Snapshot
	if sup.State == model.SupervisionPending {
		hist, err := v.s.branches.History(id)
		if err != nil {
			return harness.Snapshot{}, err
		}
		snap.Info = model.ThreadInfo{Status: model.ThreadIdle, Title: model.BranchTitle(hist.Title), Cwd: sup.Cwd, CreatedAt: sup.CreatedAt, UpdatedAt: sup.UpdatedAt}
		mirror = req.Messages
	} else {
		inner := req
		if mirror {
			inner = harness.ReadRequest{}
		}
		snap, err = n.Read(ctx, sup.Canonical, inner)
		if model.IsCode(err, model.CodeThreadNotFound) {
			return harness.Snapshot{}, model.Errorf(model.CodeFailedPrecondition, "the supervised thread cannot be moved to another thread; continue the source again for a new branch",
				"the canonical thread %s of supervised thread %s is missing", sup.Canonical, id)
		}
		if err != nil {
			return harness.Snapshot{}, err
		}
		if req.Messages && !mirror && snap.NextCursor == "" {
			if hist, err := v.s.branches.History(id); err == nil && len(hist.Messages) > 0 {
				snap.NextCursor = mirrorCursor + "end"
			}
		}
	}
	snap.Info.ID, snap.Info.Link, snap.Info.Harness = string(id), id.Link(), model.NativeHarness
	// A branch keeps the link to its source, and its source's title until it has its own.
	snap.Info.BranchOf = branchOf(sup)
	if snap.Info.BranchOf != nil && sup.State != model.SupervisionPending && !named(ctx, n, sup.Canonical) {
		// Its first prompt is no title of its own: like its catalog row, it keeps its source's.
		snap.Info.Title = v.s.branchTitle(id)
	}
	if mirror {
		hist, err := v.s.branches.History(id)
		if err != nil {
			return harness.Snapshot{}, err
		}
		snap.Messages, snap.NextCursor, err = mirrorPage(hist.Messages, req)
		if err != nil {
			return harness.Snapshot{}, err
		}
	}
	return snap, nil
}

// mirrorPage pages the history newest page first, oldest first within a page, like every
// messages view. Its cursor is the end of the next page; "end" is the newest one.
func mirrorPage(msgs []model.Message, req harness.ReadRequest) ([]model.Message, string, error) {
	limit := req.Limit
	if limit <= 0 {
		limit = model.DefaultPageLimit
	}
	limit = min(limit, model.MaxPageLimit)
	end := len(msgs)
	if req.Cursor != "" {
		rest, ok := strings.CutPrefix(req.Cursor, mirrorCursor)
		n, err := strconv.Atoi(rest)
		switch {
		case ok && rest == "end":
		case !ok || err != nil || n < 0 || n > len(msgs):
			return nil, "", model.Errorf(model.CodeInvalidArgument, "pass the nextCursor of the previous page unchanged", "malformed cursor")
		default:
			end = n
		}
	}
	start := max(0, end-limit)
	page := append([]model.Message{}, msgs[start:end]...)
	next := ""
	if start > 0 {
		next = mirrorCursor + strconv.Itoa(start)
	}
	return page, next, nil
}

// Owns reports whether id is a supervised thread.
func (v threadView) Owns(_ context.Context, id model.ThreadID) bool {
	_, ok, _ := v.s.branches.Supervision(id)
	return ok
}

// Active is empty: turns run on canonical threads, which their harness reports.
func (v threadView) Active() []model.ThreadID { return nil }

// Close does nothing: the harnesses it uses are closed by their owners.
func (v threadView) Close() error { return nil }

func threadNotFound(id model.ThreadID) error {
	return model.Errorf(model.CodeThreadNotFound, "check the id with `codexhost thread list`", "no thread %s in any harness", id)
}
