package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
)

// maxLineageNodes bounds a lineage walk: one thread.list per node.
const maxLineageNodes = 2000

// maxLineageDepth bounds the climb to the root, in case records ever form a loop.
const maxLineageDepth = 64

// lineageNode is one thread of a delegation tree. A thread that cannot be read (a parent
// whose harness is gone, say) keeps its place with its id and the error.
type lineageNode struct {
	Thread   model.ThreadInfo `json:"thread"`
	Parent   string           `json:"parent,omitempty"`
	Children []string         `json:"children"`
	Error    *model.Error     `json:"error,omitempty"`
}

// lineageResult is the tree around Focus: Nodes root first, every parent before its children.
type lineageResult struct {
	Focus     string        `json:"focus"`
	Root      string        `json:"root"`
	Nodes     []lineageNode `json:"nodes"`
	Truncated bool          `json:"truncated"`
}

type callFunc func(ctx context.Context, method string, params, out any) error

func newLineageCmd() *cobra.Command {
	o := operatorCommand{timeoutMs: 30000}
	cmd := &cobra.Command{
		Use:   "lineage T [--json]",
		Short: "Show the delegation tree around a thread, from its root to the leaves",
		Long: "Show who delegated a thread and what it delegated in turn: the thread's origin is followed up to the root " +
			"(thread read), then every delegated child is listed down to the leaves (thread list --parent), with each " +
			"thread's harness, status and refs. At most 2000 threads are shown.",
		Args: exactThreadArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			home, err := homeDir(ctx)
			if err != nil {
				return err
			}
			sess, err := openOperator(ctx, home, o, nil)
			if err != nil {
				return err
			}
			defer sess.Close()
			res, err := readLineage(ctx, sess.Call, args[0], maxLineageNodes)
			if err != nil {
				return err
			}
			return o.print(cmd, res, func(w io.Writer) { printLineage(w, res) })
		},
	}
	o.register(cmd)
	return cmd
}

// readLineage climbs from thread through its origins to the root, then lists the delegated
// children of every thread from the root down, breadth first, up to limit threads.
func readLineage(ctx context.Context, call callFunc, thread string, limit int) (lineageResult, error) {
	var first api.ThreadReadResult
	if err := call(ctx, api.MethodThreadRead, api.ThreadReadParams{Thread: thread}, &first); err != nil {
		return lineageResult{}, err
	}
	res := lineageResult{Focus: first.Thread.ID}
	nodes := map[string]*lineageNode{first.Thread.ID: {Thread: first.Thread}}
	// The climb: each thread's origin names its parent.
	cur := nodes[first.Thread.ID]
	for range maxLineageDepth {
		o := cur.Thread.Origin
		if o == nil || o.Kind != model.OriginThread || o.ParentThread == "" {
			break
		}
		if _, seen := nodes[o.ParentThread]; seen {
			break
		}
		cur.Parent = o.ParentThread
		parent := &lineageNode{Thread: model.ThreadInfo{ID: o.ParentThread, Refs: []string{}}}
		var pr api.ThreadReadResult
		if err := call(ctx, api.MethodThreadRead, api.ThreadReadParams{Thread: o.ParentThread}, &pr); err != nil {
			if ctx.Err() != nil {
				return lineageResult{}, ctx.Err()
			}
			parent.Error = model.AsError(err)
		} else {
			parent.Thread = pr.Thread
		}
		nodes[o.ParentThread] = parent
		cur = parent
		if parent.Error != nil {
			break
		}
	}
	res.Root = cur.Thread.ID

	// The descent: breadth first, so a cut keeps the levels nearest the root.
	order := []string{res.Root}
	queue := []string{res.Root}
	inOrder := map[string]bool{res.Root: true}
	for len(queue) > 0 && !res.Truncated {
		id := queue[0]
		queue = queue[1:]
		cursor := ""
		for {
			var page api.ThreadListResult
			p := api.ThreadListParams{Parent: id, AnyCwd: true, Sort: "created-asc", Limit: model.MaxPageLimit, Cursor: cursor}
			if err := call(ctx, api.MethodThreadList, p, &page); err != nil {
				return lineageResult{}, err
			}
			for _, t := range page.Threads {
				if inOrder[t.ID] {
					continue
				}
				if len(order) >= limit {
					res.Truncated = true
					break
				}
				n := nodes[t.ID]
				if n == nil {
					n = &lineageNode{Thread: t}
					nodes[t.ID] = n
				}
				n.Parent = id
				nodes[id].Children = append(nodes[id].Children, t.ID)
				inOrder[t.ID] = true
				order = append(order, t.ID)
				queue = append(queue, t.ID)
			}
			if page.NextCursor == "" || res.Truncated {
				break
			}
			cursor = page.NextCursor
		}
	}
	// Threads met on the climb stay in the tree even when the descent did not reach them
	// (records of an origin without a listed delegation, or a cut).
	var missing []string
	for id := res.Focus; id != "" && !inOrder[id]; id = nodes[id].Parent {
		missing = append(missing, id)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		id := missing[i]
		if parent := nodes[id].Parent; parent != "" && !containsString(nodes[parent].Children, id) {
			nodes[parent].Children = append(nodes[parent].Children, id)
		}
		inOrder[id] = true
		order = append(order, id)
	}
	res.Nodes = make([]lineageNode, 0, len(order))
	for _, id := range order {
		n := nodes[id]
		if n.Children == nil {
			n.Children = []string{}
		}
		res.Nodes = append(res.Nodes, *n)
	}
	return res, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// printLineage draws the tree for people: one thread per line, the asked one marked.
func printLineage(w io.Writer, res lineageResult) {
	byID := make(map[string]lineageNode, len(res.Nodes))
	for _, n := range res.Nodes {
		byID[n.Thread.ID] = n
	}
	var walk func(id, lead string, depth int, last bool)
	walk = func(id, lead string, depth int, last bool) {
		n, ok := byID[id]
		if !ok {
			return
		}
		branch, childLead := "", lead
		if depth > 0 {
			if last {
				branch, childLead = lead+"└─ ", lead+"   "
			} else {
				branch, childLead = lead+"├─ ", lead+"│  "
			}
		}
		line := branch + id
		if n.Error != nil {
			line += "  unreadable: " + n.Error.Message
		} else {
			line += "  " + n.Thread.Harness + "  " + n.Thread.Status
			if n.Thread.Title != "" {
				line += "  " + fmt.Sprintf("%q", n.Thread.Title)
			}
			if len(n.Thread.Refs) > 0 {
				line += "  refs: " + strings.Join(n.Thread.Refs, ", ")
			}
		}
		if id == res.Focus {
			line += "  ◀"
		}
		fmt.Fprintln(w, line)
		for i, ch := range n.Children {
			walk(ch, childLead, depth+1, i == len(n.Children)-1)
		}
	}
	walk(res.Root, "", 0, true)
	if res.Truncated {
		fmt.Fprintf(w, "(cut at %d threads)\n", len(res.Nodes))
	}
}
