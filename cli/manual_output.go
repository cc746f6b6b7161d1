package cli

import (
	"fmt"
	"strings"

	"github.com/codexhost/codexhost/runtime/api"
)

// manualOutputFields renders the manual's OUTPUT FIELDS section: every command's keys and
// then every object type they use (api.AgentOutputs), one line per key.
func manualOutputFields() string {
	var b strings.Builder
	for _, s := range api.OutputShapes(api.AgentOutputs) {
		if s.IsObject {
			fmt.Fprintf(&b, "  %s object:\n", s.Owner)
		} else {
			fmt.Fprintf(&b, "  %s:\n", s.Owner)
		}
		for _, f := range s.Fields {
			name := f.Name
			if f.Optional {
				name += "?"
			}
			fmt.Fprintf(&b, "    %-20s %-16s %s\n", name, f.Type, f.Doc)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
