package mcp

import (
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// outputSchema is the outputSchema of a tool whose structured content is a t: derived from
// the Go type, so it cannot drift from what the handler returns. Objects stay open to fields
// a newer runtime adds (a client validating an older schema must not reject them).
func outputSchema(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	open(s)
	nullable(s, t)
	return s, nil
}

// nullFielder is a result type whose MarshalJSON writes some fields as null (the public
// shape's "no turn", "last page") where its Go type says string: the schema must allow it,
// or a client validating the result rejects a real answer.
type nullFielder interface{ NullFields() []string }

// nullable lets s (the schema of t) take null where t's MarshalJSON writes it, in t and in
// the struct fields it holds.
func nullable(s *jsonschema.Schema, t reflect.Type) {
	for s != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil || t.Kind() != reflect.Struct {
		return
	}
	if nf, ok := reflect.Zero(t).Interface().(nullFielder); ok {
		for _, name := range nf.NullFields() {
			if p := s.Properties[name]; p != nil && p.Type != "" {
				p.Types, p.Type = []string{"null", p.Type}, ""
			}
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			nullable(s, f.Type)
		} else if p := s.Properties[name]; p != nil && f.IsExported() {
			nullable(p, f.Type)
		}
	}
}

// open removes additionalProperties: false everywhere in s.
func open(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		open(p)
	}
	open(s.Items)
	for _, sub := range s.AnyOf {
		open(sub)
	}
	for _, sub := range s.OneOf {
		open(sub)
	}
	for _, sub := range s.Defs {
		open(sub)
	}
}

// anyOutput is the outputSchema of a tool whose result is one of several shapes.
func anyOutput(types ...reflect.Type) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object"}
	for _, t := range types {
		sub, err := outputSchema(t)
		if err != nil {
			panic("mcp: output schema of " + t.String() + ": " + err.Error())
		}
		s.AnyOf = append(s.AnyOf, sub)
	}
	return s
}
