package agentskill

import (
	"os"
	"path/filepath"
	"testing"
)

// A skill folder of any content (a hand-edited SKILL.md, a damaged manifest) reads as one of
// the known states, never an error or a panic; only our own bytes read as current.
func FuzzStateOf(f *testing.F) {
	f.Add([]byte(content), []byte(`{"sha256":"x"}`))
	f.Add([]byte("changed by hand"), []byte(`{"sha256":"`+digest([]byte("changed by hand"))+`"}`))
	f.Add([]byte{}, []byte(`[`))
	f.Add([]byte("\x00\xff"), []byte(`{"sha256":null}`))
	f.Fuzz(func(t *testing.T, skill, manifest []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), skill, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, manifestFile), manifest, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := stateOf(root)
		if err != nil {
			t.Fatalf("stateOf: %v", err)
		}
		switch st.State {
		case StateCurrent:
			if digest(skill) != digest([]byte(content)) {
				t.Fatal("foreign bytes read as current")
			}
		case StateOutdated, StateChanged:
		default:
			t.Fatalf("state %q", st.State)
		}
	})
}
