package lineage

import (
	"reflect"
	"testing"
)

// The tree is drawn root first with each child's branch, a collapsed thread's children left
// out, a thread missing from the tree skipped and a thread reached twice drawn once.
func TestLinesDrawsTheTreeOnce(t *testing.T) {
	tree := map[string][]string{"r": {"a", "b", "gone"}, "a": {"a1", "a2"}, "a1": {}, "a2": {"r"}, "b": {"b1"}, "b1": {}}
	children := func(id string) ([]string, bool) { kids, ok := tree[id]; return kids, ok }
	draw := func(lines []Line) []string {
		var out []string
		for _, l := range lines {
			out = append(out, l.Prefix+l.ID)
		}
		return out
	}
	got := draw(Lines("r", children, nil))
	want := []string{"r", "├─ a", "│  ├─ a1", "│  └─ a2", "├─ b", "│  └─ b1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tree:\n got %q\nwant %q", got, want)
	}
	lines := Lines("r", children, func(id string) bool { return id == "a" })
	if got := draw(lines); !reflect.DeepEqual(got, []string{"r", "├─ a", "├─ b", "│  └─ b1"}) {
		t.Errorf("collapsed a: %q", got)
	}
	if !lines[1].Kids || lines[1].Depth != 1 || lines[3].Kids {
		t.Errorf("kids and depth: %+v", lines)
	}
	if got := Lines("none", children, nil); len(got) != 0 {
		t.Errorf("a root not in the tree draws %v", got)
	}
}
