package lineage

// Line is one drawn line of a delegation tree: a thread, how deep it is and the tree's
// branches before it ("├─ ", "└─ " after the leads of its ancestors).
type Line struct {
	ID     string
	Depth  int
	Prefix string
	Kids   bool // it has children (shown or collapsed)
}

// Lines lists the tree under root as faces draw it, root first, each thread once and every
// thread's children in order. children gives a thread's children, ok false for a thread
// not in the tree (it is left out); the children of a thread collapsed reports are left out
// (nil collapses none).
func Lines(root string, children func(id string) (kids []string, ok bool), collapsed func(id string) bool) []Line {
	var out []Line
	seen := map[string]bool{}
	var walk func(id string, depth int, lead string, last bool)
	walk = func(id string, depth int, lead string, last bool) {
		kids, ok := children(id)
		if !ok || seen[id] {
			return
		}
		seen[id] = true
		prefix, childLead := "", lead
		if depth > 0 {
			if last {
				prefix, childLead = lead+"└─ ", lead+"   "
			} else {
				prefix, childLead = lead+"├─ ", lead+"│  "
			}
		}
		out = append(out, Line{ID: id, Depth: depth, Prefix: prefix, Kids: len(kids) > 0})
		if collapsed != nil && collapsed(id) {
			return
		}
		for i, ch := range kids {
			walk(ch, depth+1, childLead, i == len(kids)-1)
		}
	}
	walk(root, 0, "", true)
	return out
}
