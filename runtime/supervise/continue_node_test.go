package supervise

import (
	"context"
	"slices"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Scenario: S003-18 — the gateway invokes only what the node advertises and its policy
// allows: a missing resume command leaves the node readable without continue, and continue
// is refused before anything is read from the node.
func TestS003_18_NodeContinueNeedsAllThreeCommandsAdvertisedAndAllowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		commands  []string
		allows    func(string) bool
		wantCaps  []string
		continues bool
	}{
		{"all offered and allowed", api.NodeCommands, allowAll, []string{"list", "transcript", "continue"}, true},
		{"resume not advertised", api.NodeCommands[:2], allowAll, []string{"list", "transcript"}, false},
		{"resume not allowed", api.NodeCommands, func(c string) bool { return c != api.NodeCmdSessionResume }, []string{"list", "transcript"}, false},
		{"turns denied", api.NodeCommands, func(c string) bool { return c != api.NodeCmdTurnsList }, []string{"list"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := startTestNode(t, []map[string]any{nodeRow(500)}, tc.commands...)
			cat := nodeCatalog(t, node, tc.allows)
			sup := newTestBranches(t, cat)
			if caps := cat.Hosts(context.Background()).Hosts[1].Capabilities; !slices.Equal(caps, tc.wantCaps) {
				t.Fatalf("capabilities %v, want %v", caps, tc.wantCaps)
			}
			id := nodeRow(500)["id"].(string)
			b, err := sup.Continue(context.Background(), api.CatalogContinueParams{Thread: id, Host: "node:lab"})
			if !tc.continues {
				wantCode(t, err, model.CodeFailedPrecondition)
				if n := node.invocations(api.NodeCmdThreadsList) + node.invocations(api.NodeCmdTurnsList); n != 0 {
					t.Fatalf("a refused continue invoked %d node commands", n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b.Supervision.Binding != model.BindingNodeSession || b.Supervision.Canonical != model.ThreadID(id) || b.Supervision.State != model.SupervisionBound {
				t.Fatalf("binding %+v", b.Supervision)
			}
		})
	}
}

// Scenario: S003-18 — an active node source offers no continue; a non-listed one is not found.
func TestS003_18_NodeContinueNeedsAnIdleOrStoredListedSource(t *testing.T) {
	t.Parallel()
	rows := []map[string]any{nodeRow(500), nodeRow(501)}
	rows[0]["status"] = map[string]any{"type": "active", "activeFlags": []string{}}
	node := startTestNode(t, rows, api.NodeCommands...)
	cat := nodeCatalog(t, node, allowAll)
	sup := newTestBranches(t, cat)
	_, err := sup.Continue(context.Background(), api.CatalogContinueParams{Thread: rows[0]["id"].(string), Host: "node:lab"})
	wantCode(t, err, model.CodeFailedPrecondition)
	_, err = sup.Continue(context.Background(), api.CatalogContinueParams{Thread: "01a22b08-0000-7000-8000-999999999999", Host: "node:lab"})
	wantCode(t, err, model.CodeThreadNotFound)
	if node.invocations(api.NodeCmdTurnsList) != 0 {
		t.Fatal("an ineligible source's turns were read")
	}
}
