package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codexhost/codexhost/model"
)

// prop is one property of a tool's input schema.
type prop struct {
	name     string
	required bool
	schema   *jsonschema.Schema
}

func ptr[T any](v T) *T { return &v }

func str(name, desc string, minLen, maxLen int) prop {
	s := &jsonschema.Schema{Type: "string", Description: desc, MaxLength: ptr(maxLen)}
	if minLen > 0 {
		s.MinLength = ptr(minLen)
	}
	return prop{name: name, schema: s}
}

func enum(name, desc string, def string, values ...string) prop {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	s := &jsonschema.Schema{Type: "string", Description: desc, Enum: vs}
	if def != "" {
		s.Default = json.RawMessage(`"` + def + `"`)
	}
	return prop{name: name, schema: s}
}

func integer(name, desc string, lo, hi, def int) prop {
	s := &jsonschema.Schema{Type: "integer", Description: desc, Minimum: ptr(float64(lo)), Maximum: ptr(float64(hi))}
	if def != 0 || lo == 0 {
		s.Default = json.RawMessage(fmt.Sprint(def))
	}
	return prop{name: name, schema: s}
}

func boolean(name, desc string, def bool) prop {
	return prop{name: name, schema: &jsonschema.Schema{Type: "boolean", Description: desc, Default: json.RawMessage(fmt.Sprint(def))}}
}

func strList(name, desc string, minItems, maxItems, maxLen int) prop {
	s := &jsonschema.Schema{Type: "array", Description: desc, MaxItems: ptr(maxItems),
		Items: &jsonschema.Schema{Type: "string", MinLength: ptr(1), MaxLength: ptr(maxLen)}}
	if minItems > 0 {
		s.MinItems = ptr(minItems)
	}
	return prop{name: name, schema: s}
}

func enumList(name, desc string, minItems, maxItems int, values ...string) prop {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return prop{name: name, schema: &jsonschema.Schema{Type: "array", Description: desc, MinItems: ptr(minItems), MaxItems: ptr(maxItems),
		Items: &jsonschema.Schema{Type: "string", Enum: vs}}}
}

// req marks a property required.
func (p prop) req() prop { p.required = true; return p }

// object builds a closed object schema: unknown arguments are refused.
func object(props ...prop) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	for _, p := range props {
		s.Properties[p.name] = p.schema
		if p.required {
			s.Required = append(s.Required, p.name)
		}
	}
	return s
}

// validator checks a tool's arguments property by property, so that every refusal names the
// argument at fault.
type validator struct {
	schema *jsonschema.Schema
	props  map[string]*jsonschema.Resolved
	names  []string
}

func newValidator(s *jsonschema.Schema) (*validator, error) {
	v := &validator{schema: s, props: map[string]*jsonschema.Resolved{}}
	for name, ps := range s.Properties {
		r, err := ps.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
		v.props[name] = r
		v.names = append(v.names, name)
	}
	slices.Sort(v.names)
	return v, nil
}

// validate checks raw (a JSON object, or nothing) against the schema.
func (v *validator) validate(raw json.RawMessage) error {
	args := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if trimmed[0] != '{' || json.Unmarshal(trimmed, &args) != nil {
			return model.Errorf(model.CodeInvalidArgument, "pass the arguments as a JSON object", "the arguments are not a JSON object")
		}
	}
	for name := range args {
		if _, ok := v.props[name]; !ok {
			return model.Errorf(model.CodeInvalidArgument, "use only the arguments of the tool's input schema: "+strings.Join(v.names, ", "),
				"unknown argument %q", clipName(name)).WithDetail("field", clipName(name))
		}
	}
	for _, name := range v.schema.Required {
		if _, ok := args[name]; !ok {
			return model.Errorf(model.CodeInvalidArgument, "give "+name+": "+v.schema.Properties[name].Description,
				"missing required argument %q", name).WithDetail("field", name)
		}
	}
	for _, name := range v.names {
		val, ok := args[name]
		if !ok {
			continue
		}
		var inst any
		if err := json.Unmarshal(val, &inst); err != nil {
			return fieldError(name, v.schema.Properties[name], err.Error())
		}
		if why := check(v.schema.Properties[name], inst); why != "" {
			return fieldError(name, v.schema.Properties[name], why)
		}
		// The schema library has the last word on anything check does not cover.
		if err := v.props[name].Validate(inst); err != nil {
			return fieldError(name, v.schema.Properties[name], err.Error())
		}
	}
	return nil
}

func fieldError(name string, s *jsonschema.Schema, why string) error {
	return model.Errorf(model.CodeInvalidArgument, "fix "+name+" ("+describe(s)+"): "+s.Description,
		"argument %q is invalid: %s", name, why).WithDetail("field", name)
}

// check says in words what is wrong with a value, for the schema shapes of this package.
func check(s *jsonschema.Schema, v any) string {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	kind := jsonKind(v)
	if kind == "integer" && !slices.Contains(types, "integer") && slices.Contains(types, "number") {
		kind = "number"
	}
	if !slices.Contains(types, kind) && !(kind == "integer" && slices.Contains(types, "number")) {
		return fmt.Sprintf("want %s, got %s", strings.Join(types, " or "), kind)
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if s.MinLength != nil && n < *s.MinLength {
			return fmt.Sprintf("%d characters, at least %d needed", n, *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			return fmt.Sprintf("%d characters, at most %d allowed", n, *s.MaxLength)
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(x)) {
			return fmt.Sprintf("%q is not one of %v", clipName(x), s.Enum)
		}
	case float64:
		if s.Minimum != nil && x < *s.Minimum {
			return fmt.Sprintf("%g is less than the minimum %g", x, *s.Minimum)
		}
		if s.Maximum != nil && x > *s.Maximum {
			return fmt.Sprintf("%g is more than the maximum %g", x, *s.Maximum)
		}
	case []any:
		if s.MinItems != nil && len(x) < *s.MinItems {
			return fmt.Sprintf("%d items, at least %d needed", len(x), *s.MinItems)
		}
		if s.MaxItems != nil && len(x) > *s.MaxItems {
			return fmt.Sprintf("%d items, at most %d allowed", len(x), *s.MaxItems)
		}
		if s.Items != nil {
			for i, item := range x {
				if why := check(s.Items, item); why != "" {
					return fmt.Sprintf("item %d: %s", i, why)
				}
			}
		}
	}
	return ""
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

// describe says what a property accepts, from its schema.
func describe(s *jsonschema.Schema) string {
	parts := []string{s.Type}
	if len(s.Enum) > 0 {
		parts = append(parts, fmt.Sprintf("one of %v", s.Enum))
	}
	if s.Minimum != nil && s.Maximum != nil {
		parts = append(parts, fmt.Sprintf("%g to %g", *s.Minimum, *s.Maximum))
	}
	if s.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	return strings.Join(parts, ", ")
}

func clipName(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// jsonNames lists the JSON field names of struct type T.
func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonNames(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}
