package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/appserver"
	"github.com/codexhost/codexhost/runtime/harness"
)

// Reads for continue (runtime/supervise): the catalog resolves the host, reads the source
// with its per-host connection, health bookkeeping and error mapping, and bounds the
// source's history. Whether a source may be branched is continue's decision, asked through
// the checks it passes, so that nothing is read past a refusal.

// nodeHostPrefix starts the ids of paired nodes.
const nodeHostPrefix = api.NodeHostPrefix

// nodeHistoryTurns is the one page of newest turns a node continue imports history from.
const nodeHistoryTurns = 50

// IsNodeHost reports whether id names a paired node rather than a local host.
func IsNodeHost(id string) bool { return strings.HasPrefix(id, nodeHostPrefix) }

// IsHostFailure tells failures of an App Server itself (it exited, did not answer, could not
// be reached) from its answers about one thread.
func IsHostFailure(err error) bool { return isHostFailure(err) }

// ResolveHost resolves a host id ("" is the default local host) to the host's id, and says
// whether it is a paired node.
func (c *Catalog) ResolveHost(id string) (hostID string, node bool, err error) {
	h, err := c.host(id)
	if err != nil {
		return "", false, err
	}
	return h.spec.ID, h.node() != nil, nil
}

// LocalSource is a thread of a local host as thread/read shows it (without turns).
type LocalSource struct {
	Thread appserver.Thread
	// Archived: its rollout is among the home's archived sessions.
	Archived bool
	// Running: this runtime's own harness runs a turn on it.
	Running bool
	// Status is its status as the catalog shows it (model.Thread*).
	Status string
}

// ReadLocalSource reads thread id of a local host, asks check whether it may be branched
// and, when it may, reads its bounded visible history, on one connection within one host
// timeout. The source is read, never resumed, subscribed to or changed.
func (c *Catalog) ReadLocalSource(ctx context.Context, hostID string, id model.ThreadID, check func(LocalSource) error) (LocalSource, History, error) {
	h, err := c.host(hostID)
	if err != nil {
		return LocalSource{}, History{}, err
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	conn, err := c.conn(ctx, hctx, h)
	if err != nil {
		return LocalSource{}, History{}, err
	}
	th, err := appserver.On(conn).ThreadRead(hctx, string(id))
	if err != nil {
		switch {
		case appserver.UnknownThread(err):
			return LocalSource{}, History{}, threadNotFound(id, h.spec.ID)
		case isHostFailure(err):
			return LocalSource{}, History{}, c.hostFailed(ctx, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: read %s: %v\n", h.spec.ID, id, err)
		return LocalSource{}, History{}, threadRefused("read the thread")
	}
	h.succeeded(c.opts.Now())
	src := LocalSource{Thread: th, Status: sessionStatus(th.Status.Type),
		Archived: th.Path != nil && strings.Contains(*th.Path, "archived_sessions"),
		Running:  h.spec.Running != nil && h.spec.Running(string(id))}
	if err := check(src); err != nil {
		return LocalSource{}, History{}, err
	}
	hist, err := c.readHistory(hctx, conn, id, harness.NativeThreadInfo(th).Title)
	if err != nil {
		switch {
		case errors.As(err, new(*model.Error)):
			return LocalSource{}, History{}, err
		case appserver.UnknownThread(err):
			return LocalSource{}, History{}, threadNotFound(id, h.spec.ID)
		case isHostFailure(err):
			return LocalSource{}, History{}, c.hostFailed(ctx, h, err)
		}
		fmt.Fprintf(c.opts.Log, "catalog: host %s: history of %s: %v\n", h.spec.ID, id, err)
		return LocalSource{}, History{}, threadRefused("list the thread's turns")
	}
	return src, hist, nil
}

// NodeChecks are continue's decisions on a paired node's thread, asked as it is read.
type NodeChecks struct {
	// Commands decides on the node commands offered and allowed right now, before anything
	// is read from the node.
	Commands func(cmds []string) error
	// Session decides on the source's row among the node's unarchived interactive sessions;
	// listed is false when it is not among them.
	Session func(s api.CatalogSession, listed bool) error
}

// ReadNodeSource reads thread id of a paired node through its versioned commands: its row
// (locate) and one page of its newest turns as the bounded history, within one host timeout.
func (c *Catalog) ReadNodeSource(ctx context.Context, hostID string, id model.ThreadID, chk NodeChecks) (api.CatalogSession, History, error) {
	h, err := c.host(hostID)
	if err != nil {
		return api.CatalogSession{}, History{}, err
	}
	n := h.node()
	if n == nil {
		return api.CatalogSession{}, History{}, model.Errorf(model.CodeInvalidArgument, "", "host %s is not a paired node", h.spec.ID)
	}
	hctx, cancel := context.WithTimeout(ctx, c.opts.HostTimeout)
	defer cancel()
	if err := h.backingOff(c.opts.Now()); err != nil {
		return api.CatalogSession{}, History{}, err
	}
	cmds, err := n.Commands(hctx)
	if err != nil {
		return api.CatalogSession{}, History{}, c.hostFailed(ctx, h, err)
	}
	if err := chk.Commands(cmds); err != nil {
		return api.CatalogSession{}, History{}, err
	}
	conn := nodeConn{n}
	r, found, err := c.locate(hctx, conn, id)
	if err != nil {
		return api.CatalogSession{}, History{}, c.hostFailed(ctx, h, err)
	}
	h.succeeded(c.opts.Now())
	if err := chk.Session(r.s, found); err != nil {
		return api.CatalogSession{}, History{}, err
	}

	res, err := c.turnsList(hctx, conn, appserver.TurnsListParams{ThreadID: string(id), Limit: nodeHistoryTurns, ItemsView: "summary", SortDirection: "desc"})
	var hist History
	switch {
	case err == nil:
		if size := itemBytes(res.Data); size > c.opts.PageBytes {
			return api.CatalogSession{}, History{}, model.Errorf(model.CodeFailedPrecondition, "continue it on the node itself",
				"the newest turns of the thread take %d bytes, more than the %d allowed", size, c.opts.PageBytes)
		}
		hist = BuildHistory(r.s.Title, res.Data)
		if res.NextCursor != nil && *res.NextCursor != "" {
			hist.OlderOmitted = true
		}
	case appserver.RPCHas(err, "not materialized"):
		hist = BuildHistory(r.s.Title, nil)
	case appserver.UnknownThread(err):
		return api.CatalogSession{}, History{}, threadNotFound(id, h.spec.ID)
	case isHostFailure(err):
		return api.CatalogSession{}, History{}, c.hostFailed(ctx, h, err)
	default:
		fmt.Fprintf(c.opts.Log, "catalog: host %s: history of %s: %v\n", h.spec.ID, id, err)
		return api.CatalogSession{}, History{}, threadRefused("list the thread's turns")
	}
	return r.s, hist, nil
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
