package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/route"
)

// rootPackage is this package: it wires capabilities and serves no method of its own.
const rootPackage = "github.com/codexhost/codexhost/runtime"

// pendingMove are the methods still served by root files that move into their capability
// packages on their own branch (runtime/markers*.go, runtime/handoffs.go). An entry that is
// no longer served here fails the test, so the list empties as they land.
var pendingMove = map[string]bool{
	"handoff.create": true, "handoff.list": true, "handoff.show": true, "markers.prune": true, "thread.markers": true,
	"skill.bundle": true, "skill.read": true, "skill.route": true,
	"task.cancel": true, "task.confirm": true, "task.result": true, "task.start": true, "task.status": true,
}

// rootRoutes lists the methods of t served by a function of the root package, each with
// the function that serves it.
func rootRoutes(t *route.Table) []string {
	var out []string
	for _, m := range t.Methods() {
		r, _ := t.Lookup(m)
		if r.Origin == "" || r.Package() == rootPackage {
			out = append(out, m+" ← "+r.Origin)
		}
	}
	return out
}

// The root only wires: every method of the routing table is served by a capability package
// (its handler is written there), and each capability's package is listed, so that a method
// added in the root, or a handler that wraps a capability in a root closure, fails here.
func TestRootRegistersNoRouteOfItsOwn(t *testing.T) {
	h := newHost(Options{Home: t.TempDir()})
	byPackage := map[string][]string{}
	for _, m := range h.routes.Methods() {
		r, _ := h.routes.Lookup(m)
		byPackage[strings.TrimPrefix(r.Package(), rootPackage+"/")] = append(byPackage[strings.TrimPrefix(r.Package(), rootPackage+"/")], m)
	}
	for pkg, methods := range byPackage {
		t.Logf("%s: %s", pkg, strings.Join(methods, " "))
	}
	var own []string
	stillHere := map[string]bool{}
	for _, line := range rootRoutes(h.routes) {
		m, _, _ := strings.Cut(line, " ← ")
		if stillHere[m] = true; !pendingMove[m] {
			own = append(own, line)
		}
	}
	if len(own) > 0 {
		t.Errorf("the root package serves methods of its own; move each into its capability's Routes():\n%s", strings.Join(own, "\n"))
	}
	for m := range pendingMove {
		if !stillHere[m] {
			t.Errorf("%s is served by its capability now: remove it from pendingMove", m)
		}
	}
	// The check sees a root handler: one written here is caught.
	rootTable := route.NewTable(h.live.Current, []route.Route{route.Spec[struct{}]{Method: "x.root", Policy: route.Everyone,
		Call: func(context.Context, route.Env, struct{}) (any, error) { return nil, nil }}.Route()})
	if got := rootRoutes(rootTable); len(got) != 1 || !strings.HasPrefix(got[0], "x.root ← "+rootPackage+".") {
		t.Errorf("a route served by the root is not found: %v", got)
	}
}
