package supervise

import (
	"context"
	"slices"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/catalog"
)

// continueNode binds a new supervised thread to a paired node's exact thread: no fork and
// no resume happen here. The node must offer (and this gateway allow) all three node
// commands right now, and the source must be an unarchived interactive idle or notLoaded
// row of the node's catalog. The binding and the thread record are written in one
// transaction, so the thread is never visible without its binding. Called with the
// source's lock held.
func (b *Branches) continueNode(ctx context.Context, hostID string, id model.ThreadID) (Branch, error) {
	s, hist, err := b.cat.ReadNodeSource(ctx, hostID, id, catalog.NodeChecks{
		Commands: func(cmds []string) error { return nodeOffersContinue(hostID, cmds) },
		Session:  func(s api.CatalogSession, listed bool) error { return nodeEligible(hostID, id, s, listed) },
	})
	if err != nil {
		return Branch{}, err
	}
	return b.create(model.Supervision{Host: hostID, Source: id, State: model.SupervisionBound, Binding: model.BindingNodeSession,
		Canonical: id, Cwd: s.Cwd, ModelProvider: s.ModelProvider}, hist)
}

// nodeOffersContinue admits a node that offers, and whose commands this gateway allows, all
// the node commands a branch needs.
func nodeOffersContinue(hostID string, cmds []string) error {
	var missing []string
	for _, cmd := range api.NodeCommands {
		if !slices.Contains(cmds, cmd) {
			missing = append(missing, cmd)
		}
	}
	if len(missing) > 0 {
		return model.Errorf(model.CodeFailedPrecondition,
			"the node must offer them (its [node] commands) and this gateway allow them (gateway.nodes.commands.allow for "+api.NodeCmdSessionResume+"); its sessions stay readable",
			"node %s cannot continue threads: %s not offered or not allowed", hostID, strings.Join(missing, ", ")).WithDetail("missing", missing)
	}
	return nil
}

// nodeEligible admits a listed idle or stored session of the node.
func nodeEligible(hostID string, id model.ThreadID, s api.CatalogSession, listed bool) error {
	if !listed {
		return model.Errorf(model.CodeThreadNotFound, "continue a session `codexhost sessions --host "+hostID+"` lists (unarchived, interactive)",
			"thread %s is not among the unarchived interactive sessions of host %s", id, hostID)
	}
	switch s.Status {
	case "idle", "notLoaded":
	case "active":
		return model.Errorf(model.CodeFailedPrecondition, "wait until its turn ends on the node", "thread %s is active", id).WithDetail("status", model.ThreadActive)
	default:
		return model.Errorf(model.CodeFailedPrecondition, "only idle or stored (notLoaded) sessions are continued",
			"thread %s is %s", id, s.Status).WithDetail("status", s.Status)
	}
	return nil
}
