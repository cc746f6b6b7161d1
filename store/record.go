package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/codexhost/codexhost/model"
)

// Record is the common head of every stored record: embed it in a record type.
//
//	type delegationRecord struct {
//		store.Record
//		Parent string `json:"parent"`
//	}
//
// V is the record's schema version. Unknown keeps the fields this binary does not declare, so
// that a record written by a newer binary survives being read and rewritten by this one.
type Record struct {
	V int `json:"v"`
	Unknown
}

// Unknown holds the JSON fields of a stored record that its Go type does not declare. Embed it
// (directly or through Record) in a struct type; Get fills it and Put writes its fields back
// alongside the declared ones. It has no exported fields, so encoding/json ignores it.
//
// Declared fields are the struct's JSON field names (tags, or Go names when untagged; fields
// of embedded structs included), matched case-insensitively as encoding/json does.
type Unknown struct {
	fields map[string]json.RawMessage
}

func (u *Unknown) unknownFields() *Unknown { return u }

// Fields returns the names of the unknown fields, sorted. Mostly for tests and diagnostics.
func (u *Unknown) Fields() []string {
	names := make([]string, 0, len(u.fields))
	for k := range u.fields {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

type unknownHolder interface{ unknownFields() *Unknown }

// decode unmarshals raw into v, which is zeroed first so that no value of an earlier use of v
// survives. When v embeds Unknown, the undeclared fields of raw are kept in it.
func decode(raw []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("store: decode into %T: need a non-nil pointer", v)
	}
	rv.Elem().SetZero()
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	h, ok := v.(unknownHolder)
	if !ok {
		return nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		return err
	}
	known := declaredFields(rv.Type().Elem())
	u := h.unknownFields()
	for k, val := range all {
		if _, ok := known[strings.ToLower(k)]; ok {
			continue
		}
		if u.fields == nil {
			u.fields = make(map[string]json.RawMessage)
		}
		u.fields[k] = val
	}
	return nil
}

// encode marshals v, adds back the unknown fields it carries, and checks the result is a JSON
// object with an integer "v" of at least 1: a record without a version cannot be migrated.
func encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("store: %T does not encode to a JSON object", v)
	}
	var version int
	if raw, ok := obj["v"]; !ok || json.Unmarshal(raw, &version) != nil || version < 1 {
		return nil, fmt.Errorf("store: %T has no record version: set its \"v\" to 1 or more", v)
	}
	h, ok := v.(unknownHolder)
	if !ok || len(h.unknownFields().fields) == 0 {
		return b, nil
	}
	added := false
	for k, val := range h.unknownFields().fields {
		if _, present := obj[k]; !present {
			obj[k] = val
			added = true
		}
	}
	if !added {
		return b, nil
	}
	return json.Marshal(obj)
}

// declaredFields returns the lower-cased JSON names encoding/json can decode into t.
var fieldCache sync.Map // reflect.Type -> map[string]struct{}

func declaredFields(t reflect.Type) map[string]struct{} {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]struct{})
	}
	m := make(map[string]struct{})
	collectFields(t, m, map[reflect.Type]bool{})
	fieldCache.Store(t, m)
	return m
}

func collectFields(t reflect.Type, into map[string]struct{}, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			// encoding/json flattens untagged embedded structs, exported or not.
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, into, seen)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[strings.ToLower(name)] = struct{}{}
	}
}

// validKey builds "<prefix>/<id>".
func validKey(prefix, id string) ([]byte, error) {
	if err := validPrefix(prefix); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, model.Errorf(model.CodeInvalidArgument, "pass a non-empty id",
			"empty record id under %q", prefix)
	}
	return []byte(prefix + "/" + id), nil
}

// validPrefix accepts a non-empty prefix that neither starts nor ends with "/". Inner slashes
// are allowed, so a prefix may name a sub-range such as "idx/parent/<thread>".
func validPrefix(prefix string) error {
	if prefix == "" || strings.HasPrefix(prefix, "/") || strings.HasSuffix(prefix, "/") {
		return model.Errorf(model.CodeInvalidArgument, "use a prefix such as \"deleg\"",
			"invalid key prefix %q", prefix)
	}
	return nil
}
