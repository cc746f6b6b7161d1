package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/lineage"
)

func newLineageCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000, jsonByDefault: true}
	cmd := &cobra.Command{
		Use:   "lineage T [--text] [--timeout-ms N]",
		Short: "Show the delegation tree around a thread, from its root to the leaves",
		Long: "Show who delegated a thread and what it delegated in turn: the thread's origin is followed up to the root " +
			"(thread read), then every delegated child is listed down to the leaves (thread list --parent), with each " +
			"thread's harness, status, refs and token usage. At most 2000 threads are shown, and the climb stops 64 " +
			"delegations up; a cut tree says so. It prints one JSON document; --text " +
			"draws the tree for people.",
		Args: exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := operatorCall(&o, cmd, api.ThreadLineage, api.ThreadLineageParams{Thread: args[0]})
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printLineage(w, res) })
		},
	}
	o.register(cmd)
	return cmd
}

// printLineage draws the tree for people: one thread per line, the asked one marked.
func printLineage(w io.Writer, res api.ThreadLineageResult) {
	byID := make(map[string]api.LineageNode, len(res.Nodes))
	for _, n := range res.Nodes {
		byID[n.Thread.ID] = n
	}
	children := func(id string) ([]string, bool) { n, ok := byID[id]; return n.Children, ok }
	for _, l := range lineage.Lines(res.Root, children, nil) {
		n := byID[l.ID]
		line := l.Prefix + l.ID
		if n.Error != nil {
			line += "  unreadable: " + n.Error.Message
		} else {
			line += "  " + n.Thread.Harness + "  " + model.PublicStatus(n.Thread)
			if n.Thread.Title != "" {
				line += "  " + fmt.Sprintf("%q", n.Thread.Title)
			}
			if len(n.Thread.Refs) > 0 {
				line += "  refs: " + strings.Join(n.Thread.Refs, ", ")
			}
		}
		if n.Usage != nil {
			line += "  " + model.ShortUsage(n.Usage) + " tok"
		}
		if n.Marker != nil {
			line += fmt.Sprintf("  ◆ marker gen %d", n.Marker.Generation)
		}
		if l.ID == res.Focus {
			line += "  ◀"
		}
		fmt.Fprintln(w, line)
	}
	printLineageFooter(w, res)
}

// printLineageFooter sums the tree up and says what its numbers leave out: threads that
// reported no usage, and which bound cut the tree (the climb to the root, or the number of
// threads), since the total then covers only the threads shown.
func printLineageFooter(w io.Writer, res api.ThreadLineageResult) {
	unknown := 0
	for _, n := range res.Nodes {
		if n.Usage == nil {
			unknown++
		}
	}
	if res.Usage != nil {
		line := "tree usage: " + model.UsageLine(res.Usage)
		if res.Truncated {
			line = "tree usage of the threads shown: " + model.UsageLine(res.Usage)
		}
		if unknown > 0 {
			line += fmt.Sprintf("; %d of %d threads have no usage recorded", unknown, len(res.Nodes))
		}
		fmt.Fprintln(w, line)
	}
	if !res.Truncated {
		return
	}
	// The walk's root has a parent only when the climb stopped at its depth bound (an
	// unreadable parent is itself the root, without an origin); the descent is cut only at
	// the node bound (the CLI asks for the default).
	climbCut := false
	for _, n := range res.Nodes {
		o := n.Thread.Origin
		climbCut = climbCut || (n.Thread.ID == res.Root && o != nil && o.Kind == model.OriginThread && o.ParentThread != "")
	}
	if climbCut {
		fmt.Fprintf(w, "(cut: the root is more than %d delegations up; drawn from %s)\n", api.LineageMaxDepth, res.Root)
	}
	if climbCut && len(res.Nodes) < api.LineageMaxNodes {
		return
	}
	fmt.Fprintf(w, "(cut at %d threads: the rest of the tree is not shown)\n", len(res.Nodes))
}
