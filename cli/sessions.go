package cli

import (
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/internal/face/opview"
	"github.com/codexhost/codexhost/internal/shquote"
	"github.com/codexhost/codexhost/internal/table"
	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

func newSessionsCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 75000, appServer: true}
	var p api.CatalogSessionsParams
	var tf tableFlags
	cmd := &cobra.Command{
		Use:   "sessions [--search TEXT] [--host ID] [--limit N] [--cursor C] [--json]",
		Short: "List the unarchived native Codex sessions of every host (metadata only)",
		Long: "List the unarchived, interactive native Codex sessions of every catalog host, grouped by host (the default " +
			"local host first). Rows carry metadata only: never previews, turns or paths. --search matches titles, " +
			"case-insensitively: on a local host from its title index in the home (the first search reads the host " +
			"whole and fills the page, later ones, of any process, answer from the index), on a paired node scanning " +
			"a bounded number of pages per call; a host's nextCursor continues the list or the search and needs --host. " +
			"A failing host reports its error and no rows; with --host, its error is the command's (exit 1).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := tf.check(); err != nil {
				return err
			}
			if cmd.Flags().Changed("limit") && (p.Limit < 1 || p.Limit > 100) {
				return model.Errorf(model.CodeInvalidArgument, "give a limit from 1 to 100 (sessions per host)", "invalid limit %d", p.Limit)
			}
			res, err := operatorCall(&o, cmd, api.CatalogSessions.Method, p)
			if err != nil {
				return err
			}
			// Of every host, a failing one is a row among the others; the one host asked for
			// failing is the command failing.
			if p.Host != "" && len(res.Hosts) == 1 && res.Hosts[0].Error != nil {
				return res.Hosts[0].Error
			}
			again := sessionsAgain(p, cmd.Flags().Changed("limit"), tf.sort)
			return o.print(cmd, res, func(w io.Writer) { printSessions(cmd, &tf, w, res, p.Search, again) })
		},
	}
	o.register(cmd)
	tf.register(cmd, opview.SessionColumns)
	f := cmd.Flags()
	f.StringVar(&p.Search, "search", "", "only sessions whose title contains TEXT (case-insensitive)")
	f.StringVar(&p.Host, "host", "", "only this host (codexhost hosts lists them)")
	f.IntVar(&p.Limit, "limit", 50, "sessions per host, 1 to 100")
	f.StringVar(&p.Cursor, "cursor", "", "a host's nextCursor from an earlier call (needs --host)")
	return cmd
}

// sessionsAgain is what the command printed to fetch a host's next page repeats after
// --host and --cursor: the search, the page size and the sort the person chose, each quoted
// for the shell, so that the next page continues the same listing when pasted.
func sessionsAgain(p api.CatalogSessionsParams, limitSet bool, sort string) string {
	var words []string
	if p.Search != "" {
		words = append(words, "--search", p.Search)
	}
	if limitSet {
		words = append(words, "--limit", strconv.Itoa(p.Limit))
	}
	if sort != "" {
		words = append(words, "--sort", sort)
	}
	if len(words) == 0 {
		return ""
	}
	return " " + shquote.Join(words...)
}

func printSessions(cmd *cobra.Command, tf *tableFlags, w io.Writer, res api.CatalogSessionsResult, search, again string) {
	for i, h := range res.Hosts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if h.Error != nil {
			fmt.Fprintf(w, "%s  error %s: %s\n", h.Host, h.Error.Code, h.Error.Message)
			if h.Error.Hint != "" {
				fmt.Fprintf(w, "  hint: %s\n", h.Error.Hint)
			}
			continue
		}
		fmt.Fprintf(w, "%s  %s\n", h.Host, table.Count(len(h.Sessions), "session"))
		if h.Revalidating {
			fmt.Fprintln(w, "  (from the title index, still being checked: a title changed elsewhere since the last check may not match yet)")
		}
		if len(h.Sessions) > 0 {
			tf.show(cmd, w, opview.Sessions(h.Sessions), "  ")
		}
		if h.NextCursor != "" {
			more := "more"
			if search != "" {
				more = "continue the search"
			}
			fmt.Fprintf(w, "  %s: codexhost sessions --host %s --cursor %s%s\n", more, shquote.Quote(h.Host), h.NextCursor, again)
		}
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
