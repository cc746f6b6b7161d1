package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
)

// nodeHistoryTurns is the one page of newest turns a node continue imports history from.
const nodeHistoryTurns = 50

// continueNode binds a new supervised thread to a paired node's exact thread: no fork and
// no resume happen here. The node must offer (and this gateway allow) all three node
// commands right now, and the source must be an unarchived interactive idle or notLoaded
// row of the node's catalog. The binding and the thread record are written in one
// transaction, so the thread is never visible without its binding. Called with the
// source's lock held.
func (s *Supervisor) continueNode(ctx context.Context, h *host, n *NodeSource, id model.ThreadID) (Branch, error) {
	c := s.cat
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	if err := h.backingOff(c.opts.Now()); err != nil {
		return Branch{}, err
	}
	cmds, err := n.Commands(hctx)
	if err != nil {
		return Branch{}, c.hostFailed(ctx, h, err)
	}
	var missing []string
	for _, cmd := range api.NodeCommands {
		if !slices.Contains(cmds, cmd) {
			missing = append(missing, cmd)
		}
	}
	if len(missing) > 0 {
		return Branch{}, model.Errorf(model.CodeFailedPrecondition,
			"the node must offer them (its [node] commands) and this gateway allow them (gateway.nodes.commands.allow for "+api.NodeCmdSessionResume+"); its sessions stay readable",
			"node %s cannot continue threads: %s not offered or not allowed", h.spec.ID, strings.Join(missing, ", ")).WithDetail("missing", missing)
	}
	conn := nodeConn{n}

	r, found, err := c.locate(hctx, conn, id)
	if err != nil {
		return Branch{}, c.hostFailed(ctx, h, err)
	}
	h.succeeded(c.opts.Now())
	if !found {
		return Branch{}, model.Errorf(model.CodeThreadNotFound, "continue a session `codexhost sessions --host "+h.spec.ID+"` lists (unarchived, interactive)",
			"thread %s is not among the unarchived interactive sessions of host %s", id, h.spec.ID)
	}
	switch r.s.Status {
	case "idle", "notLoaded":
	case "active":
		return Branch{}, model.Errorf(model.CodeFailedPrecondition, "wait until its turn ends on the node", "thread %s is active", id).WithDetail("status", model.ThreadActive)
	default:
		return Branch{}, model.Errorf(model.CodeFailedPrecondition, "only idle or stored (notLoaded) sessions are continued",
			"thread %s is %s", id, r.s.Status).WithDetail("status", r.s.Status)
	}

	res, err := c.turnsList(hctx, conn, appserver.TurnsListParams{ThreadID: string(id), Limit: nodeHistoryTurns, ItemsView: "summary", SortDirection: "desc"})
	var hist History
	switch {
	case err == nil:
		if size := itemBytes(res.Data); size > c.opts.PageBytes {
			return Branch{}, model.Errorf(model.CodeFailedPrecondition, "continue it on the node itself",
				"the newest turns of the thread take %d bytes, more than the %d allowed", size, c.opts.PageBytes)
		}
		hist = BuildHistory(r.s.Title, res.Data)
		if res.NextCursor != nil && *res.NextCursor != "" {
			hist.OlderOmitted = true
		}
	case appserver.RPCHas(err, "not materialized"):
		hist = BuildHistory(r.s.Title, nil)
	case appserver.UnknownThread(err):
		return Branch{}, threadNotFound(id, h.spec.ID)
	case isHostFailure(err):
		return Branch{}, c.hostFailed(ctx, h, err)
	default:
		fmt.Fprintf(c.opts.Log, "catalog: host %s: history of %s: %v\n", h.spec.ID, id, err)
		return Branch{}, threadRefused("list the thread's turns")
	}

	return s.create(model.Supervision{Host: h.spec.ID, Source: id, State: model.SupervisionBound, Binding: model.BindingNodeSession,
		Canonical: id, Cwd: r.s.Cwd, ModelProvider: r.s.ModelProvider}, hist)
}

// locate finds a thread among the host's unarchived interactive sessions, reading at most
// SearchPages native pages (newest first). A thread it does not find there is not eligible.
func (c *Catalog) locate(ctx context.Context, conn Conn, id model.ThreadID) (r row, found bool, err error) {
	cursor := ""
	for range c.opts.SearchPages {
		seg, err := fetchSegment(ctx, conn, cursor, NativePageSize, c.opts.Now)
		if err != nil {
			return row{}, false, err
		}
		for _, r := range seg.rows {
			if r.s.ID == string(id) {
				return r, true, nil
			}
		}
		if seg.end {
			break
		}
		cursor = seg.next
	}
	return row{}, false, nil
}
