package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/runtime/route"
)

// rootPackage is this package: it wires capabilities and serves no method of its own.
const rootPackage = "github.com/codexhost/codexhost/runtime"

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
	t.Parallel()
	h := newHost(Options{Home: t.TempDir()})
	byPackage := map[string][]string{}
	for _, m := range h.routes.Methods() {
		r, _ := h.routes.Lookup(m)
		byPackage[strings.TrimPrefix(r.Package(), rootPackage+"/")] = append(byPackage[strings.TrimPrefix(r.Package(), rootPackage+"/")], m)
	}
	for pkg, methods := range byPackage {
		t.Logf("%s: %s", pkg, strings.Join(methods, " "))
	}
	if own := rootRoutes(h.routes); len(own) > 0 {
		t.Errorf("the root package serves methods of its own; move each into its capability's Routes():\n%s", strings.Join(own, "\n"))
	}
	// The check sees a root handler: one written here is caught.
	rootTable := route.NewTable(h.live.Current, []route.Route{route.Spec[struct{}]{Method: "x.root", Policy: route.Everyone,
		Call: func(context.Context, route.Env, struct{}) (any, error) { return nil, nil }}.Route()})
	if got := rootRoutes(rootTable); len(got) != 1 || !strings.HasPrefix(got[0], "x.root ← "+rootPackage+".") {
		t.Errorf("a route served by the root is not found: %v", got)
	}
}
