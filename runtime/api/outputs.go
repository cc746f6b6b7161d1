package api

import (
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/codexhost/codexhost/model"
)

// AgentOutput is an agent-facing command and the Go type of the document it prints.
type AgentOutput struct {
	Command string
	Result  any
}

// AgentOutputs are the commands whose JSON the manual's OUTPUT FIELDS section describes:
// the section is generated from these definitions (their json and doc tags), so it lists
// exactly the keys the commands emit.
var AgentOutputs = []AgentOutput{
	{"delegate start", DelegateStartResult{}},
	{"thread read", ThreadReadResult{}},
	{"thread wait", ThreadReadResult{}},
	{"thread list", ThreadListResult{}},
	{"thread send", ThreadSendResult{}},
	{"thread cancel", ThreadCancelResult{}},
	{"thread watch", WatchResult{}},
	{"thread watches", WatchesDocument{}},
	{"harness list", HarnessListResult{}},
	{"harness inspect", HarnessInspectResult{}},
	{"client events", model.ClientEvent{}},
}

// PinnedOutputs are the other documents agents and scripts read; their names are pinned
// with AgentOutputs' (testdata/public-fields.golden) though the manual does not list them.
var PinnedOutputs = []AgentOutput{
	{"thread markers", ThreadMarkersResult{}},
	{"lineage", ThreadLineageResult{}},
	{"client add", ClientAddResult{}},
	{"client whoami", WhoamiResult{}},
}

// ClientAddResult is what client add prints: the new client's name and its token, shown
// this once (config.toml keeps only its SHA-256).
type ClientAddResult struct {
	Client string `json:"client" doc:"the client's name"`
	Token  string `json:"token" doc:"its token, printed only now"`
}

// WhoamiResult is who the runtime took the caller for: an agent (kind runtime) or a client
// and its name, the name `--notify client:NAME` and `thread list --client` take.
type WhoamiResult struct {
	Kind    string `json:"kind" doc:"runtime (an agent) or client"`
	Client  string `json:"client,omitempty" doc:"the client's name, for a client"`
	Version string `json:"version" doc:"the runtime's version"`
}

// OutputField is one JSON key of an output object.
type OutputField struct {
	Name     string
	Optional bool   // omitempty: the key may be absent
	Type     string // string, integer, boolean, time, an object's name, or X[] for a list
	Doc      string
}

// OutputShape is the keys of one command's document or of one object type within them.
type OutputShape struct {
	Owner    string // a command, or an object's name
	IsObject bool
	Fields   []OutputField
}

// objectNames names the object types where the Go name would mislead.
// Built on first use: a package-level map or regexp is built by every process at start.
var objectNames = sync.OnceValue(func() map[reflect.Type]string {
	return map[reflect.Type]string{reflect.TypeFor[model.ThreadInfo](): "Thread"}
})

// OutputShapes walks the outputs: every command's keys, then every object type they use, in
// the order first met.
func OutputShapes(outputs []AgentOutput) []OutputShape {
	var out []OutputShape
	var objects []reflect.Type
	seen := map[reflect.Type]bool{}
	found := func(t reflect.Type) {
		if !seen[t] {
			seen[t] = true
			objects = append(objects, t)
		}
	}
	for _, o := range outputs {
		out = append(out, OutputShape{Owner: o.Command, Fields: outputFields(reflect.TypeOf(o.Result), found)})
	}
	for i := 0; i < len(objects); i++ {
		out = append(out, OutputShape{Owner: objectName(objects[i]), IsObject: true, Fields: outputFields(objects[i], found)})
	}
	return out
}

func outputFields(t reflect.Type, found func(reflect.Type)) []OutputField {
	var fields []OutputField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			// encoding/json puts an untagged embedded struct's fields beside the others.
			fields = append(fields, outputFields(f.Type, found)...)
			continue
		}
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		fields = append(fields, OutputField{Name: name, Optional: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"),
			Type: typeName(f.Type, found), Doc: f.Tag.Get("doc")})
	}
	return fields
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
	if n, ok := objectNames()[t]; ok {
		return n
	}
	return t.Name()
}
