package cli

import (
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

// print writes one JSON document on stdout: the result's document, or its compact form.
func (f *formatFlag) print(w io.Writer, v any) error {
	doc := api.AgentDocument(v)
	if f.format == formatCompact {
		var err error
		if doc, err = api.CompactDocument(v); err != nil {
			return err
		}
	}
	b, err := model.MarshalPlain(doc)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}
