package keymap

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// Disabled unbinds an action in config.toml: "thread.archive" = "<disabled>".
const Disabled = "<disabled>"

// Apply rebinds km from the [keys] table of config.toml: each entry is "scope.action" = "key"
// or ["key", ...]. Every problem is reported, each naming its entry; km is changed only when
// there is none.
func Apply(km *KeyMap, keys map[string]any) error {
	if len(keys) == 0 {
		return nil
	}
	next := *km
	byName := map[string]Action{}
	for _, a := range next.Actions() {
		byName[a.Name] = a
	}
	names := make([]string, 0, len(keys))
	for n := range keys {
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		path := fmt.Sprintf("[keys] %q", name)
		a, ok := byName[name]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s", path, unknownAction(name, next.Actions())))
			continue
		}
		list, err := keyList(keys[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", path, err))
			continue
		}
		if len(list) == 1 && list[0] == Disabled {
			*a.Binding = key.NewBinding(key.WithDisabled(), key.WithHelp("", a.Binding.Help().Desc))
			continue
		}
		var bound []string
		for _, k := range list {
			if k == Disabled {
				errs = append(errs, fmt.Errorf("%s: %q must stand alone", path, Disabled))
				continue
			}
			norm, ok := Normalize(k)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: unknown key name %q (examples: \"a\", \"A\", \"ctrl+a\", \"enter\", \"space\", \"pgdown\")", path, k))
				continue
			}
			bound = append(bound, norm)
		}
		if len(bound) == 0 {
			continue
		}
		*a.Binding = key.NewBinding(key.WithKeys(bound...), key.WithHelp(helpKeys(bound), a.Binding.Help().Desc))
	}
	if len(errs) == 0 {
		errs = append(errs, Validate(&next)...)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	*km = next
	return nil
}

// Validate reports keys bound to two actions that are live at the same moment, once per
// pair of actions, naming every place where both are live.
func Validate(km *KeyMap) []error {
	acts := km.Actions()
	type clash struct{ key, first, second string }
	var order []clash
	where := map[clash][]string{}
	for _, g := range activeTogether {
		owner := map[string]string{}
		for _, a := range acts {
			if !a.Binding.Enabled() || !(contains(g.scopes, a.Scope) || contains(g.extra, a.Name)) {
				continue
			}
			for _, k := range a.Binding.Keys() {
				prev, dup := owner[k]
				if !dup {
					owner[k] = a.Name
					continue
				}
				c := clash{displayKey(k), prev, a.Name}
				if _, seen := where[c]; !seen {
					order = append(order, c)
				}
				where[c] = append(where[c], g.where)
			}
		}
	}
	errs := make([]error, 0, len(order))
	for _, c := range order {
		errs = append(errs, fmt.Errorf("[keys]: %q is bound to both %q and %q, which are both live in %s", c.key, c.first, c.second, andJoin(where[c])))
	}
	return errs
}

func andJoin(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func keyList(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil, fmt.Errorf("empty binding; give a key such as \"a\", a list of keys, or %q to unbind", Disabled)
		}
		return []string{v}, nil
	case []any:
		if len(v) == 0 {
			return nil, fmt.Errorf("empty list; give at least one key, or %q to unbind", Disabled)
		}
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("every key must be a non-empty string, got %v", e)
			}
			out = append(out, s)
		}
		return out, nil
	case []string:
		return keyList(anySlice(v))
	}
	return nil, fmt.Errorf("expected a key or a list of keys, got %T", v)
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func helpKeys(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = displayKey(k)
	}
	return strings.Join(out, "/")
}

func displayKey(k string) string {
	if k == " " {
		return "space"
	}
	return k
}

func actionNames(acts []Action) []string {
	out := make([]string, len(acts))
	for i, a := range acts {
		out[i] = a.Name
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
