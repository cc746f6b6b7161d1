package catalog

import (
	"context"
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
)

// ConfirmFlag is the CLI flag that confirms no other runner uses a thread being archived.
const ConfirmFlag = "--confirm-no-other-runner"

// allSourceKinds lists every thread/list source kind: descendants are sub-agents, which the
// default (interactive) filter would hide.
var allSourceKinds = []string{"cli", "vscode", "exec", "appServer", "subAgent", "subAgentReview", "subAgentCompact", "subAgentThreadSpawn", "subAgentOther", "unknown"}

// archivedThread is a thread of thread/read without turns, decoded only as far as archive
// needs.
type archivedThread struct {
	ID        string                 `json:"id"`
	Status    appserver.ThreadStatus `json:"status"`
	Path      *string                `json:"path"`
	Ephemeral bool                   `json:"ephemeral"`
}

// Archive archives a stored or idle thread of a local host. The caller confirms that no
// other runner uses it; the thread is read again here and archived only when idle or
// notLoaded, not running a turn in this runtime nor held open by another Codex process, and
// the same holds for every unarchived descendant. Success is reported only once Codex
// accepted the archive. guard is the supervised branches archive must respect (nil when
// none are kept): the caller that keeps them passes it, so the catalog knows no keeper.
func (c *Catalog) Archive(ctx context.Context, p api.CatalogArchiveParams, guard BranchGuard) (api.CatalogArchiveResult, error) {
	if !p.ConfirmNoOtherRunner {
		return api.CatalogArchiveResult{}, model.Errorf(model.CodeInvalidArgument,
			"archive closes the thread for every Codex client; make sure no other client (Codex Desktop, a CLI, another runtime) runs it, then pass "+ConfirmFlag,
			"archive needs %s", ConfirmFlag)
	}
	h, err := c.host(p.Host)
	if err != nil {
		return api.CatalogArchiveResult{}, err
	}
	if h.node() != nil {
		// No runner lease reaches across machines, so no confirmation here can cover a node.
		return api.CatalogArchiveResult{}, model.Errorf(model.CodeFailedPrecondition, "archive it on the node itself (`codexhost archive` there)",
			"host %s is a paired node; node threads are never archived from a gateway", h.spec.ID)
	}
	id, err := model.ParseThreadID(p.Thread)
	if err != nil {
		return api.CatalogArchiveResult{}, err
	}
	release, err := archiveGuard(guard, h.spec.ID, id)
	if err != nil {
		return api.CatalogArchiveResult{}, err
	}
	defer release()
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	conn, err := c.conn(ctx, hctx, h)
	if err != nil {
		return api.CatalogArchiveResult{}, err
	}

	th, err := appserver.ReadThreadAs[archivedThread](hctx, conn, string(id))
	if err != nil {
		switch {
		case appserver.UnknownThread(err):
			return api.CatalogArchiveResult{}, threadNotFound(id, h.spec.ID)
		case isHostFailure(err):
			return api.CatalogArchiveResult{}, c.hostFailed(ctx, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: read %s: %v\n", h.spec.ID, id, err)
		return api.CatalogArchiveResult{}, threadRefused("read the thread")
	}
	h.succeeded(c.opts.Now())
	switch {
	case th.Ephemeral:
		return api.CatalogArchiveResult{}, model.Errorf(model.CodeFailedPrecondition, "ephemeral threads are never stored, so there is nothing to archive", "thread %s is ephemeral", id)
	case th.Path != nil && strings.Contains(*th.Path, "archived_sessions"):
		return api.CatalogArchiveResult{}, model.Errorf(model.CodeFailedPrecondition, "it no longer shows in `codexhost sessions`", "thread %s is already archived", id)
	case th.Status.Type == appserver.StatusActive:
		return api.CatalogArchiveResult{}, model.Errorf(model.CodeFailedPrecondition, "wait until its turn ends; archive is not a way to interrupt", "thread %s is active", id).WithDetail("status", model.ThreadActive)
	case th.Status.Type != appserver.StatusIdle && th.Status.Type != appserver.StatusNotLoaded:
		return api.CatalogArchiveResult{}, withStatus(model.Errorf(model.CodeFailedPrecondition, "only idle or stored (notLoaded) threads are archived", "thread %s is %s", id, sessionStatus(th.Status.Type)), th.Status.Type)
	}
	if why := c.owner(guard, h, conn, string(id)); why != "" {
		return api.CatalogArchiveResult{}, model.Errorf(model.CodeFailedPrecondition, "wait until it is released, or close it there", "thread %s %s", id, why)
	}
	if err := c.checkDescendants(ctx, hctx, guard, h, conn, string(id)); err != nil {
		return api.CatalogArchiveResult{}, err
	}

	if err := appserver.On(conn).ThreadArchive(hctx, string(id)); err != nil {
		if isHostFailure(err) {
			// Codex may or may not have archived it; the row is re-read rather than guessed.
			c.forgetIndex(h)
			return api.CatalogArchiveResult{}, c.hostFailed(ctx, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: archive %s: %v\n", h.spec.ID, id, err)
		return api.CatalogArchiveResult{}, threadRefused("archive the thread")
	}
	h.setOverlay(c.opts.Now(), string(id), func(o *overlay) { o.archived = true })
	return api.CatalogArchiveResult{Host: h.spec.ID, Thread: string(id), Archived: true}, nil
}

// owner says what holds a thread open, or "" when nothing known does: a turn this runtime
// runs on it, a supervised thread bound to it, or another Codex process holding its writer
// lock.
func (c *Catalog) owner(guard BranchGuard, h *host, conn Conn, id string) string {
	if h.spec.Running != nil && h.spec.Running(id) {
		return "is running a turn in this runtime"
	}
	if why := boundOwner(guard, id); why != "" {
		return why
	}
	if harness.OtherWriter(conn.Info().CodexHome, id, conn.Pid()) {
		return "is open in another Codex process"
	}
	return ""
}

// checkDescendants pages the unarchived descendants of a thread and refuses when one is
// active or owned. It fails closed: an error, a repeated cursor or thread, or more pages than
// the budget refuse the archive.
func (c *Catalog) checkDescendants(outer, ctx context.Context, guard BranchGuard, h *host, conn Conn, id string) error {
	refuse := func(format string, args ...any) error {
		return model.Errorf(model.CodeFailedPrecondition, "nothing was archived; retry, or archive it from Codex itself", format, args...)
	}
	seenThread := map[string]bool{id: true}
	q := storedThreads("", NativePageSize)
	q.AncestorThreadID, q.SourceKinds = id, allSourceKinds
	pager := appserver.NewThreadPager[ListedThread](conn, q)
	for {
		if pager.Pages() >= c.opts.DescendantPages {
			return refuse("thread %s has more descendants than can be checked (%d pages)", id, c.opts.DescendantPages)
		}
		data, err := pager.Next(ctx)
		if err != nil {
			fmt.Fprintf(c.opts.Log, "catalog: host %s: descendants of %s: %v\n", h.spec.ID, id, err)
			if isHostFailure(err) {
				return c.hostFailed(outer, h, err)
			}
			return refuse("the descendants of thread %s could not be listed", id)
		}
		for _, t := range data {
			if t.ID == "" || seenThread[t.ID] {
				return refuse("listing the descendants of thread %s repeated a thread", id)
			}
			seenThread[t.ID] = true
			if t.Status.Type == appserver.StatusActive {
				return refuse("its descendant %s is active", t.ID)
			}
			if why := c.owner(guard, h, conn, t.ID); why != "" {
				return refuse("its descendant %s %s", t.ID, why)
			}
		}
		if pager.Looped() {
			return refuse("listing the descendants of thread %s looped", id)
		}
		if pager.Done() {
			return nil
		}
	}
}

func (c *Catalog) forgetIndex(h *host) {
	h.omu.Lock()
	h.live.reset = true
	h.omu.Unlock()
}
