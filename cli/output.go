package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/termsafe"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// Output formats of agent-facing commands.
const (
	formatJSON    = "json"
	formatCompact = "compact"
)

type formatFlag struct{ format string }

func (f *formatFlag) register(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&f.format, "format", formatJSON, "output format: json (full) or compact (shorter, thread links instead of ids)")
}

func (f *formatFlag) validate() error {
	if f.format != formatJSON && f.format != formatCompact {
		return model.Errorf(model.CodeInvalidArgument, "use --format json or --format compact", "unknown format %q", f.format)
	}
	return nil
}

// writeHuman runs human, the form of a result for people, on w through a termsafe.Writer:
// the text it prints comes from threads, sessions, clients and files, and no escape sequence
// or bidi control in it may reach the terminal. JSON output is exact and never goes this way.
func writeHuman(w io.Writer, human func(io.Writer)) {
	sw := termsafe.NewWriter(w)
	human(sw)
	sw.Flush()
}

// print writes one JSON document on stdout.
func (f *formatFlag) print(w io.Writer, v any) error {
	b, err := model.MarshalPlain(api.AgentDocument(v))
	if err != nil {
		return err
	}
	if f.format == formatCompact {
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		b, err = model.MarshalPlain(compact(doc))
		if err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// compact drops what a model rarely needs: internal ids where a link exists, timestamps, and
// empty values.
func compact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		_, hasLink := x["link"]
		_, hasDeepLink := x["deepLink"]
		for k, val := range x {
			if (k == "id" && hasLink) || (k == "threadId" && hasDeepLink) || k == "createdAt" || k == "updatedAt" || k == "at" {
				continue
			}
			c := compact(val)
			if empty(c) {
				continue
			}
			out[k] = c
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			out = append(out, compact(e))
		}
		return out
	}
	return v
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	}
	return false
}
