package cli

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// manualOutputs are the commands whose JSON the manual's OUTPUT FIELDS section describes,
// each with the Go type it prints: the section is generated from these definitions (their
// json and doc tags), so it lists exactly the keys the commands emit.
var manualOutputs = []struct {
	command string
	result  any
}{
	{"delegate start", api.DelegateStartResult{}},
	{"thread read", api.ThreadReadResult{}},
	{"thread wait", api.ThreadReadResult{}},
	{"thread list", api.ThreadListResult{}},
	{"thread send", api.ThreadSendResult{}},
	{"thread cancel", api.ThreadCancelResult{}},
	{"thread watch", api.WatchResult{}},
	{"thread watches", api.WatchesDocument{}},
	{"harness list", api.HarnessListResult{}},
	{"harness inspect", api.HarnessInspectResult{}},
	{"client events", model.ClientEvent{}},
}

// objectNames names the object types in the manual where the Go name would mislead.
var objectNames = map[reflect.Type]string{reflect.TypeFor[model.ThreadInfo](): "Thread"}

// manualOutputFields renders every command's keys and then every object type they use.
func manualOutputFields() string {
	var b strings.Builder
	var objects []reflect.Type
	seen := map[reflect.Type]bool{}
	for _, o := range manualOutputs {
		fmt.Fprintf(&b, "  %s:\n", o.command)
		writeFields(&b, reflect.TypeOf(o.result), func(t reflect.Type) {
			if !seen[t] {
				seen[t] = true
				objects = append(objects, t)
			}
		})
	}
	for i := 0; i < len(objects); i++ {
		t := objects[i]
		fmt.Fprintf(&b, "  %s object:\n", objectName(t))
		writeFields(&b, t, func(t reflect.Type) {
			if !seen[t] {
				seen[t] = true
				objects = append(objects, t)
			}
		})
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeFields writes one line per JSON key of struct t: key (? when it may be absent), type,
// meaning; object types it refers to go to found.
func writeFields(b *strings.Builder, t reflect.Type, found func(reflect.Type)) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		if strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
			name += "?"
		}
		fmt.Fprintf(b, "    %-20s %-16s %s\n", name, typeName(f.Type, found), f.Tag.Get("doc"))
	}
}

func typeName(t reflect.Type, found func(reflect.Type)) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "time"
	case t.Kind() == reflect.Slice:
		return typeName(t.Elem(), found) + "[]"
	case t.Kind() == reflect.Struct:
		found(t)
		return objectName(t)
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "integer"
	}
	return "string"
}

func objectName(t reflect.Type) string {
	if n, ok := objectNames[t]; ok {
		return n
	}
	return t.Name()
}
