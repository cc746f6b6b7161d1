// Package route is the runtime API's routing table: every method is registered once with the
// policy that says who may call it, how its parameters are decoded and the handler that
// serves it. Dispatch looks the method up, checks the policy, decodes, checks any stricter
// policy the parameters call for, and only then calls the handler, so no handler checks
// permissions itself and a refusal never reaches one.
package route

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	goruntime "runtime"
	"sort"
	"strings"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/config"
)

// Route is one runtime API method, built by Spec.Route.
type Route struct {
	Method string
	Policy *Policy
	// Transport marks a method the API server serves itself (events.subscribe): the table
	// holds its policy, the server asks Authorize before serving it.
	Transport bool
	// Origin is the function that serves the method (for a transport route, the one that
	// registered it), package path included: it shows which capability a route belongs to.
	Origin string
	serve  func(ctx context.Context, env Env, raw json.RawMessage) (any, error)
}

// Env is what a handler and a policy know of the call.
type Env struct {
	Caller api.Caller
	Config *config.Config
}

// Grant is the calling client's grant ("" callers and non-clients have none).
func (e Env) Grant() config.Grant {
	if e.Caller.Kind != api.CallerClient || e.Config == nil {
		return config.Grant{}
	}
	return e.Config.Grant(e.Caller.Client)
}

// Spec describes a method whose parameters decode into P.
type Spec[P any] struct {
	Method string
	Policy *Policy
	// Strict refuses unknown parameter fields (the compat tools' contract).
	Strict bool
	// DecodeHint names the fix for malformed parameters when it can do better than the
	// generic one; "" keeps the generic hint.
	DecodeHint func(err error) string
	// Escalate returns a stricter policy for these parameters (a node host, a thread of
	// another principal), checked after decoding and before Call; nil means none.
	Escalate func(ctx context.Context, env Env, p P) (*Policy, error)
	Call     func(ctx context.Context, env Env, p P) (any, error)
}

// Route turns the spec into a table entry.
func (s Spec[P]) Route() Route {
	return Route{Method: s.Method, Policy: s.Policy, Origin: funcName(s.Call), serve: func(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
		var p P
		if err := decode(raw, &p, s.Strict); err != nil {
			hint := "check the request fields"
			if s.DecodeHint != nil && s.DecodeHint(err) != "" {
				hint = s.DecodeHint(err)
			}
			return nil, model.Errorf(model.CodeInvalidArgument, hint, "malformed parameters: %v", err)
		}
		if s.Escalate != nil {
			stricter, err := s.Escalate(ctx, env, p)
			if err != nil {
				return nil, err
			}
			if stricter != nil {
				if err := stricter.Check(env, s.Method); err != nil {
					return nil, err
				}
			}
		}
		return s.Call(ctx, env, p)
	}}
}

// TransportRoute registers a method the API server serves itself.
func TransportRoute(method string, pol *Policy) Route {
	origin := ""
	if pc, _, _, ok := goruntime.Caller(1); ok {
		origin = goruntime.FuncForPC(pc).Name()
	}
	return Route{Method: method, Policy: pol, Transport: true, Origin: origin}
}

// funcName names a handler by the function that defines it (a closure is named after the
// function it is written in).
func funcName(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	if f := goruntime.FuncForPC(v.Pointer()); f != nil {
		return f.Name()
	}
	return ""
}

// Package is the import path of the package that defines the function Origin names.
func (r Route) Package() string {
	name := r.Origin
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		return name[:slash+1+dot]
	}
	return name
}

func decode(raw json.RawMessage, into any, strict bool) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if !strict {
		return json.Unmarshal(raw, into)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// Table is the set of routes of one runtime.
type Table struct {
	routes map[string]Route
	config func() *config.Config
}

// NewTable builds the table. A route without a policy, or a method registered twice, is a
// programming error found at start-up, not a method anyone may call.
func NewTable(config func() *config.Config, routes ...[]Route) *Table {
	t := &Table{routes: map[string]Route{}, config: config}
	for _, group := range routes {
		for _, r := range group {
			if r.Policy == nil {
				panic(fmt.Sprintf("route %s has no policy", r.Method))
			}
			if r.serve == nil && !r.Transport {
				panic(fmt.Sprintf("route %s has no handler", r.Method))
			}
			if _, dup := t.routes[r.Method]; dup {
				panic(fmt.Sprintf("route %s registered twice", r.Method))
			}
			t.routes[r.Method] = r
		}
	}
	return t
}

// Methods lists the registered methods, sorted.
func (t *Table) Methods() []string {
	out := make([]string, 0, len(t.routes))
	for m := range t.routes {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the route of a method.
func (t *Table) Lookup(method string) (Route, bool) {
	r, ok := t.routes[method]
	return r, ok
}

// Authorize checks the caller against the method's policy without serving it.
func (t *Table) Authorize(caller api.Caller, method string) error {
	r, ok := t.routes[method]
	if !ok {
		return fmt.Errorf("%w: %s", api.ErrUnknownMethod, method)
	}
	return r.Policy.Check(Env{Caller: caller, Config: t.config()}, method)
}

// Dispatch serves one authenticated request.
func (t *Table) Dispatch(ctx context.Context, caller api.Caller, method string, raw json.RawMessage) (any, error) {
	r, ok := t.routes[method]
	if !ok {
		return nil, fmt.Errorf("%w: %s", api.ErrUnknownMethod, method)
	}
	env := Env{Caller: caller, Config: t.config()}
	if err := r.Policy.Check(env, method); err != nil {
		return nil, err
	}
	if r.Transport {
		return nil, model.Errorf(model.CodeInvalidArgument, "", "%s is served by the connection itself", method)
	}
	return r.serve(ctx, env, raw)
}
