package route

import (
	"context"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

func noConfig() *config.Config { return &config.Config{} }

func echo(method string, pol *Policy) Route {
	return Spec[struct{ N int }]{Method: method, Policy: pol,
		Call: func(_ context.Context, _ Env, p struct{ N int }) (any, error) { return p.N, nil }}.Route()
}

func mustPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	fn()
}

// A method registered without a policy, or twice, never makes a table.
func TestNewTableRefusesARouteWithoutPolicyOrTwice(t *testing.T) {
	mustPanic(t, "no policy", func() { NewTable(noConfig, []Route{echo("a.b", nil)}) })
	mustPanic(t, "twice", func() { NewTable(noConfig, []Route{echo("a.b", Everyone)}, []Route{echo("a.b", Everyone)}) })
	mustPanic(t, "no handler", func() { NewTable(noConfig, []Route{{Method: "a.b", Policy: Everyone}}) })
}

// Dispatch checks the policy before decoding: a refused caller with malformed parameters is
// refused, not told about its parameters, and the handler never runs.
func TestDispatchChecksPolicyBeforeDecodeAndEscalationBeforeCall(t *testing.T) {
	ran := 0
	tbl := NewTable(noConfig, []Route{
		echo("open", Everyone),
		Spec[struct{ Host string }]{Method: "esc", Policy: Everyone,
			Escalate: func(_ context.Context, _ Env, p struct{ Host string }) (*Policy, error) {
				if p.Host == "node" {
					return NodesOnly, nil
				}
				return nil, nil
			},
			Call: func(context.Context, Env, struct{ Host string }) (any, error) { ran++; return nil, nil }}.Route(),
	})
	agent := api.Caller{Kind: api.CallerRuntime}
	node := api.Caller{Kind: api.CallerNode, Client: "gw"}
	if _, err := tbl.Dispatch(context.Background(), node, "open", []byte(`{"N":"x"}`)); !model.IsCode(err, model.CodePermissionDenied) {
		t.Fatalf("node on open: %v", err)
	}
	if _, err := tbl.Dispatch(context.Background(), agent, "open", []byte(`{"N":"x"}`)); !model.IsCode(err, model.CodeInvalidArgument) {
		t.Fatalf("malformed: %v", err)
	}
	if _, err := tbl.Dispatch(context.Background(), agent, "esc", []byte(`{"Host":"node"}`)); !model.IsCode(err, model.CodePermissionDenied) || ran != 0 {
		t.Fatalf("escalated: %v ran %d", err, ran)
	}
	if _, err := tbl.Dispatch(context.Background(), agent, "esc", []byte(`{"Host":"local"}`)); err != nil || ran != 1 {
		t.Fatalf("plain: %v ran %d", err, ran)
	}
	if _, err := tbl.Dispatch(context.Background(), agent, "nosuch", nil); err == nil {
		t.Fatal("unknown method dispatched")
	}
}

// A route is named after the function that serves it, so the table shows which package each
// method comes from; a transport route, after the function that registered it.
func TestRouteOriginNamesTheDefiningPackage(t *testing.T) {
	const here = "github.com/codexhost/codexhost/runtime/route"
	r := echo("x.echo", Everyone)
	if r.Package() != here || r.Origin != here+".echo.func1" {
		t.Errorf("origin %q, package %q", r.Origin, r.Package())
	}
	tr := TransportRoute("x.stream", Everyone)
	if tr.Package() != here || tr.Origin != here+".TestRouteOriginNamesTheDefiningPackage" {
		t.Errorf("transport origin %q, package %q", tr.Origin, tr.Package())
	}
	if (Route{}).Package() != "" {
		t.Error("a route without origin has a package")
	}
}
