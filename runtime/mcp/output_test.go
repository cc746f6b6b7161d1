package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Results whose public shape writes null where the Go type holds a string (no turn started,
// nothing running, the last page of messages) match their tool's outputSchema: a client that
// validates structured content must not reject a real answer. The schema still refuses a
// value of the wrong type there.
func TestOutputSchemasAllowThePublicNulls(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		api.DelegateStartResult{ThreadID: "t"},
		api.ThreadCancelResult{ThreadID: "t"},
		api.ThreadReadResult{ThreadID: "t", Messages: []model.Message{}},
	} {
		s, err := outputSchema(reflect.TypeOf(v))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		var doc map[string]any
		_ = json.Unmarshal(b, &doc)
		if err := r.Validate(doc); err != nil {
			t.Errorf("%T: %s does not match its outputSchema: %v", v, b, err)
		}
		for _, name := range v.(interface{ NullFields() []string }).NullFields() {
			if doc[name] != nil {
				t.Fatalf("%T: %s is not null in %s", v, name, b)
			}
			doc[name] = 7
			if err := r.Validate(doc); err == nil {
				t.Errorf("%T: the schema takes a number for %s", v, name)
			}
		}
	}
}
