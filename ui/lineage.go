package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/api"
	"github.com/codexhost/codexhost/runtime/lineage"
)

type lineageLoadedMsg struct {
	seq    int
	thread string
	lin    Lineage
	err    error
}

// visNode is one drawn line of the tree.
type visNode struct {
	id     string
	depth  int
	prefix string // the tree's branches before the node
	kids   bool
}

// flattenLineage lists the nodes a reader sees, root first, skipping the children of
// collapsed nodes (lineage.Lines). Pure, so the tree's shape is tested without a runtime.
func flattenLineage(nodes map[string]*LineageNode, root string, collapsed map[string]bool) []visNode {
	lines := lineage.Lines(root, func(id string) ([]string, bool) {
		if n := nodes[id]; n != nil {
			return n.Children, true
		}
		return nil, false
	}, func(id string) bool { return collapsed[id] })
	out := make([]visNode, 0, len(lines))
	for _, l := range lines {
		out = append(out, visNode{id: l.ID, depth: l.Depth, prefix: l.Prefix, kids: l.Kids})
	}
	return out
}

// lineagePane draws the delegation tree around the selected thread.
type lineagePane struct {
	c       *common
	w, h    int
	focused bool

	ref     threadRef
	has     bool
	seq     int
	loading bool
	dirty   bool // a reload was asked while one ran
	err     string

	lin       Lineage
	nodes     map[string]*LineageNode
	collapsed map[string]bool
	vis       []visNode
	cursor    int
	curID     string
	offset    int
}

func newLineagePane(c *common) *lineagePane {
	return &lineagePane{c: c, nodes: map[string]*LineageNode{}, collapsed: map[string]bool{}}
}

func (l *lineagePane) Init() tea.Cmd { return nil }

func (l *lineagePane) Title() string {
	if len(l.nodes) == 0 {
		return "Lineage"
	}
	return "Lineage · " + plural(len(l.nodes), "thread", "threads")
}

func (l *lineagePane) SetSize(w, h int)  { l.w, l.h = w, h; l.scroll() }
func (l *lineagePane) SetFocused(b bool) { l.focused = b }
func (l *lineagePane) Capturing() bool   { return false }

func (l *lineagePane) ShortHelp() []key.Binding {
	k := l.c.keys
	return []key.Binding{navHelp(k.List.Up, k.List.Down), navHelp(k.Lineage.Collapse, k.Lineage.Expand), k.List.Select}
}

func (l *lineagePane) FullHelp() [][]key.Binding { return [][]key.Binding{l.ShortHelp()} }

// Selected is the node under the cursor.
func (l *lineagePane) Selected() (threadRef, bool) {
	if l.cursor < 0 || l.cursor >= len(l.vis) {
		return threadRef{}, false
	}
	n := l.nodes[l.vis[l.cursor].id]
	if n == nil {
		return threadRef{}, false
	}
	return l.nodeRef(n), true
}

func (l *lineagePane) nodeRef(n *LineageNode) threadRef {
	if n.Thread.ID == l.ref.ID && l.has {
		r := l.ref
		r.Status = n.Thread.Status
		return r
	}
	return l.c.refFromInfo(n.Thread)
}

// Show centres the tree on ref; a thread already in the tree only moves the marker.
func (l *lineagePane) Show(ref threadRef) tea.Cmd {
	l.ref, l.has = ref, true
	if ref.node() {
		// Delegations of a paired node's session are recorded by the runtime that runs it.
		l.nodes, l.vis, l.lin, l.err = map[string]*LineageNode{}, nil, Lineage{}, ""
		return nil
	}
	if _, ok := l.nodes[ref.ID]; ok {
		l.lin.Focus = ref.ID
		l.moveToID(ref.ID)
		return nil
	}
	l.nodes, l.vis, l.lin, l.err = map[string]*LineageNode{}, nil, Lineage{}, ""
	l.curID, l.cursor, l.offset = ref.ID, 0, 0
	return l.reload()
}

func (l *lineagePane) reload() tea.Cmd {
	if !l.has {
		return nil
	}
	if l.loading {
		l.dirty = true
		return nil
	}
	l.seq++
	l.loading = true
	seq, id, c := l.seq, l.ref.ID, l.c
	return func() tea.Msg {
		res, err := call(c, api.ThreadLineage, api.ThreadLineageParams{Thread: id})
		return lineageLoadedMsg{seq: seq, thread: id, lin: lineageOf(res), err: err}
	}
}

func (l *lineagePane) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return l.handleKey(msg)
	case lineageLoadedMsg:
		if msg.seq != l.seq {
			return nil
		}
		l.loading = false
		if msg.thread == l.ref.ID {
			if msg.err != nil {
				l.err = errText(msg.err)
			} else {
				l.err = ""
				l.set(msg.lin)
			}
		}
		if l.dirty {
			l.dirty = false
			return l.reload()
		}
	case eventMsg:
		ev := msg.ev
		if ev.Type == api.EventThreadUsage && l.has {
			// The node's new total; the tree's follows from the nodes, no read needed.
			if n, ok := l.nodes[ev.Thread]; ok {
				n.Thread.Usage = ev.Usage
			}
			return nil
		}
		if ev.Type != api.EventThreadStatus || !l.has {
			return nil
		}
		if n, ok := l.nodes[ev.Thread]; ok {
			if ev.Status != "" {
				n.Thread.Status = ev.Status
			}
			return nil
		}
		// An unknown thread that starts may be a new child of the tree.
		if ev.Status == model.ThreadActive || ev.TurnStatus == model.TurnInProgress {
			return l.reload()
		}
	case threadChangedMsg:
		if _, ok := l.nodes[msg.parent]; ok && msg.created {
			return l.reload()
		}
		if _, ok := l.nodes[msg.id]; ok {
			return l.reload()
		}
	}
	return nil
}

func (l *lineagePane) set(lin Lineage) {
	l.lin = lin
	l.nodes = make(map[string]*LineageNode, len(lin.Nodes))
	for i := range lin.Nodes {
		n := &lin.Nodes[i]
		l.nodes[n.Thread.ID] = n
		l.c.ids.add(n.Thread.ID)
	}
	l.lin.Focus = l.ref.ID
	l.revis()
	if l.curID == "" {
		l.curID = l.ref.ID
	}
	l.moveToID(l.curID)
}

func (l *lineagePane) revis() {
	l.vis = flattenLineage(l.nodes, l.lin.Root, l.collapsed)
}

func (l *lineagePane) moveToID(id string) {
	for i, v := range l.vis {
		if v.id == id {
			l.cursor = i
			l.curID = id
			l.scroll()
			return
		}
	}
	l.cursor = max(0, min(l.cursor, len(l.vis)-1))
	if len(l.vis) > 0 {
		l.curID = l.vis[l.cursor].id
	}
	l.scroll()
}

func (l *lineagePane) bodyHeight() int { return max(l.h-1, 1) }

func (l *lineagePane) scroll() {
	bh := l.bodyHeight()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+bh {
		l.offset = l.cursor - bh + 1
	}
	l.offset = max(0, min(l.offset, len(l.vis)-bh))
}

func (l *lineagePane) moveTo(i int) {
	if len(l.vis) == 0 {
		return
	}
	l.cursor = max(0, min(i, len(l.vis)-1))
	l.curID = l.vis[l.cursor].id
	l.scroll()
}

func (l *lineagePane) handleKey(k tea.KeyMsg) tea.Cmd {
	km := l.c.keys
	switch {
	case key.Matches(k, km.List.Up):
		l.moveTo(l.cursor - 1)
	case key.Matches(k, km.List.Down):
		l.moveTo(l.cursor + 1)
	case key.Matches(k, km.List.PageUp):
		l.moveTo(l.cursor - l.bodyHeight())
	case key.Matches(k, km.List.PageDown):
		l.moveTo(l.cursor + l.bodyHeight())
	case key.Matches(k, km.List.Top):
		l.moveTo(0)
	case key.Matches(k, km.List.Bottom):
		l.moveTo(len(l.vis) - 1)
	case key.Matches(k, km.Lineage.Expand):
		if l.collapsed[l.curID] {
			delete(l.collapsed, l.curID)
			l.revis()
		} else if l.cursor+1 < len(l.vis) && l.vis[l.cursor+1].depth > l.vis[l.cursor].depth {
			l.moveTo(l.cursor + 1)
		}
	case key.Matches(k, km.Lineage.Collapse):
		if n := l.nodes[l.curID]; n != nil && len(n.Children) > 0 && !l.collapsed[l.curID] {
			l.collapsed[l.curID] = true
			l.revis()
		} else if n != nil && n.Parent != "" {
			l.moveToID(n.Parent)
		}
	case key.Matches(k, km.Lineage.Toggle):
		if n := l.nodes[l.curID]; n != nil && len(n.Children) > 0 {
			if l.collapsed[l.curID] {
				delete(l.collapsed, l.curID)
			} else {
				l.collapsed[l.curID] = true
			}
			l.revis()
		}
	case key.Matches(k, km.List.Select):
		if ref, ok := l.Selected(); ok {
			return emit(threadSelectedMsg{ref: ref, focus: true})
		}
	}
	return nil
}

func (l *lineagePane) View() string {
	st := l.c.st
	switch {
	case !l.has:
		return fit(st.Muted.Render("Select a thread to see who delegated it and to whom."), l.w, l.h)
	case l.ref.node():
		return fit(strings.Join(wrapStyled(st.Muted, "A session of paired node "+l.ref.Host+": its delegations are recorded by the runtime on that node.", l.w), "\n"), l.w, l.h)
	case l.err != "" && len(l.vis) == 0:
		return fit(strings.Join(wrap(st.G.Danger+l.err, l.w), "\n"), l.w, l.h)
	case len(l.vis) == 0:
		return fit(st.Muted.Render("loading…"), l.w, l.h)
	}
	var out []string
	bh := l.bodyHeight()
	for i := l.offset; i < len(l.vis) && i < l.offset+bh; i++ {
		out = append(out, l.renderNode(i))
	}
	out = fitLines(out, l.w, bh)
	out = append(out, l.footer())
	return strings.Join(fitLines(out, l.w, l.h), "\n")
}

func (l *lineagePane) renderNode(i int) string {
	st, v := l.c.st, l.vis[i]
	n := l.nodes[v.id]
	fold := st.G.Leaf
	if v.kids {
		fold = st.G.Expanded
		if l.collapsed[v.id] {
			fold = st.G.Collapsed
		}
	}
	var text strings.Builder
	text.WriteString(oneLine(n.Thread.Harness))
	text.WriteString(" ")
	text.WriteString(l.c.short(v.id))
	if n.Thread.Title != "" {
		text.WriteString(" " + oneLine(n.Thread.Title))
	}
	if len(n.Thread.Refs) > 0 {
		text.WriteString(fmt.Sprintf(" · %d ref", len(n.Thread.Refs)))
		if len(n.Thread.Refs) > 1 {
			text.WriteString("s")
		}
	}
	if n.MarkerGen > 0 {
		text.WriteString(fmt.Sprintf(" · ◆ marker gen %d", n.MarkerGen))
	}
	if n.Thread.Usage != nil {
		text.WriteString(" · " + model.ShortUsage(n.Thread.Usage) + " tok")
	}
	if n.Err != "" {
		text.WriteString(" · unreadable")
	}
	line := text.String()
	if v.id == l.lin.Focus {
		line += " ◀"
	}
	cur := st.G.NoCursor
	if i == l.cursor {
		cur = st.G.Cursor
		sel := st.SelectedInactive
		if l.focused {
			sel = st.Selected
		}
		line = sel.Render(line)
	} else if v.id == l.lin.Focus {
		line = st.Accent.Render(line)
	}
	return cur + st.Muted.Render(v.prefix) + fold + l.c.refBadge(n.Thread.Status, n.Thread.WaitingOnApproval, lastFailed(n.Thread), true) + " " + line
}

func (l *lineagePane) footer() string {
	st := l.c.st
	if l.err != "" {
		return st.Danger.Render(st.G.Danger + l.err)
	}
	n := l.nodes[l.curID]
	if n == nil {
		return ""
	}
	var parts []string
	parts = append(parts, statusWords(n.Thread.Status, n.Thread.WaitingOnApproval))
	if lastFailed(n.Thread) && n.Thread.Status != model.ThreadActive {
		parts[0] += ", its last turn failed" // as its ✗ says
	}
	// The tree's total and the context fill come before refs, which can be long.
	if tree := l.treeUsage(); tree != "" {
		parts = append(parts, "tree "+tree)
	}
	if c := model.ContextText(n.Thread.Usage); c != "" && n.Thread.Status == model.ThreadActive {
		parts = append(parts, c)
	}
	if n.MarkerGen > 0 {
		parts = append(parts, fmt.Sprintf("created by a marker block, generation %d", n.MarkerGen))
	}
	if len(n.Thread.Refs) == 0 {
		parts = append(parts, "no refs")
	} else {
		refs := make([]string, len(n.Thread.Refs))
		for i, r := range n.Thread.Refs {
			refs[i] = oneLine(r)
		}
		parts = append(parts, "refs: "+strings.Join(refs, ", "))
	}
	if l.lin.Truncated {
		parts = append(parts, "tree cut short")
	}
	return st.Muted.Render(ansi.Truncate(strings.Join(parts, " · "), l.w, "…"))
}

// lineageOf is the pane's view of the runtime's tree.
func lineageOf(res api.ThreadLineageResult) Lineage {
	out := Lineage{Focus: res.Focus, Root: res.Root, Truncated: res.Truncated}
	for _, n := range res.Nodes {
		ln := LineageNode{Thread: n.Thread, Parent: n.Parent, Children: n.Children}
		if n.Error != nil {
			ln.Err = n.Error.Message
		}
		if n.Marker != nil {
			ln.MarkerGen = max(n.Marker.Generation, 1) // a marked node is at least generation 1
		}
		out.Nodes = append(out.Nodes, ln)
	}
	return out
}

// treeUsage is the tokens of every thread shown, with an estimate when prices are set; ""
// when none reported any.
func (l *lineagePane) treeUsage() string {
	us := make([]*model.Usage, 0, len(l.lin.Nodes))
	for i := range l.lin.Nodes {
		us = append(us, l.lin.Nodes[i].Thread.Usage)
	}
	total := model.TotalUsage(us...)
	if total == nil {
		return "" // no thread of the tree reported usage: nothing to add up
	}
	text := model.ShortUsage(total) + " tok"
	if c := model.CostText(total); c != "" {
		text += " " + c
	}
	return text
}
