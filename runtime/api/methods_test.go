package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// methodConstants are the package's Method* string constants, by name, from its source.
func methodConstants(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Method") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					out[id.Name] = v
				}
			}
		}
	}
	return out
}

// Every method name has exactly one typed entry, and every entry names a method.
func TestMethodTableCoversEveryMethodOnce(t *testing.T) {
	consts := methodConstants(t)
	if len(consts) < 40 {
		t.Fatalf("found %d method constants; the source scan is broken", len(consts))
	}
	names := map[string]bool{}
	for _, v := range consts {
		names[v] = true
	}
	seen := map[string]int{}
	for _, m := range Methods() {
		seen[m.MethodName()]++
		if !names[m.MethodName()] {
			t.Errorf("typed entry %q names no method constant", m.MethodName())
		}
		p, r := m.Zero()
		if p == nil || r == nil {
			t.Errorf("%s: no params or result type", m.MethodName())
		}
	}
	for c, v := range consts {
		if seen[v] != 1 {
			t.Errorf("%s (%q) has %d typed entries, want 1", c, v, seen[v])
		}
	}
}

// Every package-level Method or Streaming value is listed by Methods, so none escapes the
// checks above (and the ones against the routes).
func TestMethodsListsEveryTypedValue(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "methods.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for _, v := range vs.Values {
			if cl, ok := v.(*ast.CompositeLit); ok {
				if ix, ok := cl.Type.(*ast.IndexListExpr); ok {
					if id, ok := ix.X.(*ast.Ident); ok && (id.Name == "Method" || id.Name == "Streaming") {
						declared++
					}
				}
			}
		}
		return true
	})
	if got := len(Methods()); got != declared {
		t.Errorf("Methods lists %d entries; methods.go declares %d typed methods", got, declared)
	}
}
