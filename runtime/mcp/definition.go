package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/codexhost/codexhost/model"
)

// Definition is one MCP tool: its name, the underscore alias some clients need (dots are not
// allowed everywhere), what an agent reads about it, its input schema with the limits, and
// how it calls the runtime.
type Definition struct {
	Name        string
	Alias       string // "" when Name has no dot
	Description string
	ReadOnly    bool
	Destructive bool
	Schema      *jsonschema.Schema
	// Output is the schema of the structured content of a successful call (outputSchema).
	Output *jsonschema.Schema

	validator  *validator
	argsType   reflect.Type
	resultType reflect.Type
	// run decodes the validated arguments and makes the runtime calls.
	run func(ctx context.Context, rt Runtime, args json.RawMessage) (any, error)
}

// Names are the names the tool answers to: its own and its alias.
func (d Definition) Names() []string {
	if d.Alias == "" {
		return []string{d.Name}
	}
	return []string{d.Name, d.Alias}
}

// tool defines a tool whose arguments decode into A and whose result is an R; the tool's
// outputSchema is derived from R.
func tool[A, R any](name, desc string, readOnly, destructive bool, schema *jsonschema.Schema, run func(context.Context, Runtime, A) (R, error)) Definition {
	d := Definition{Name: name, Description: desc, ReadOnly: readOnly, Destructive: destructive, Schema: schema,
		argsType: reflect.TypeFor[A](), resultType: reflect.TypeFor[R]()}
	if strings.Contains(name, ".") {
		d.Alias = strings.ReplaceAll(name, ".", "_")
	}
	d.run = func(ctx context.Context, rt Runtime, raw json.RawMessage) (any, error) {
		var a A
		if len(bytes.TrimSpace(raw)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&a); err != nil {
				return nil, model.Errorf(model.CodeInvalidArgument, "match the tool's input schema", "the arguments do not decode: %v", err)
			}
		}
		return run(ctx, rt, a)
	}
	return d
}

// mustDefinitions checks the table once: unique names, schemas that resolve, and schema
// properties that are exactly the JSON fields the arguments decode into.
func mustDefinitions(defs ...Definition) []Definition {
	seen := map[string]bool{}
	for i := range defs {
		d := &defs[i]
		for _, n := range d.Names() {
			if seen[n] {
				panic("mcp: tool name " + n + " defined twice")
			}
			seen[n] = true
		}
		v, err := newValidator(d.Schema)
		if err != nil {
			panic(fmt.Sprintf("mcp: tool %s: %v", d.Name, err))
		}
		d.validator = v
		if d.Output == nil {
			if d.Output, err = outputSchema(d.resultType); err != nil {
				panic(fmt.Sprintf("mcp: tool %s: output schema: %v", d.Name, err))
			}
		}
		fields := jsonNames(d.argsType)
		slices.Sort(fields)
		if !slices.Equal(fields, v.names) {
			panic(fmt.Sprintf("mcp: tool %s: schema properties %v differ from the argument fields %v", d.Name, v.names, fields))
		}
	}
	return defs
}
