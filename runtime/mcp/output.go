package mcp

import (
	"reflect"

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
	return s, nil
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
