package api

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (go test -run %s -update rewrites it, on purpose only):\n%s", path, t.Name(), lineDiff(string(want), got))
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	return b.String()
}

// The public field names are pinned: the manual is generated from the same structs as the
// output, so only this list catches a renamed json tag (defaultModel → defaultModelId), a key
// that became optional, or a changed type. Change testdata/public-fields.golden on purpose.
// Scenario: S000-14
func TestPublicFieldNamesArePinned(t *testing.T) {
	var b strings.Builder
	for _, s := range OutputShapes(append(append([]AgentOutput{}, AgentOutputs...), PinnedOutputs...)) {
		kind := "command"
		if s.IsObject {
			kind = "object"
		}
		for _, f := range s.Fields {
			opt := ""
			if f.Optional {
				opt = "?"
			}
			fmt.Fprintf(&b, "%s %s.%s%s %s\n", kind, s.Owner, f.Name, opt, f.Type)
		}
	}
	golden(t, "public-fields.golden", b.String())
}
