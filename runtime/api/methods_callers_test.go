package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const apiImportPath = "github.com/codexhost/codexhost/runtime/api"

// callerDirs are the runtime API's clients, from the module root: they call the runtime
// through the typed methods only. The routing table, which registers the names, is not one.
var callerDirs = []string{"ui", "cli", "runtime/mcp", "runtime/catalog", "bench"}

var methodConst = regexp.MustCompile(`^Method[A-Z]`)

// No client names a runtime method: no Method* constant, and no Call or CallEvents with a
// method name, except an adapter's own Call passing on the name it was given.
func TestClientsCallThroughTypedMethods(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, dir := range callerDirs {
		root := filepath.Join("..", "..", dir)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			files++
			for _, msg := range untypedCalls(fset, f) {
				t.Error(msg)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("scanned %d files; the walk is broken", files)
	}
}

// The check finds what it is for: each form below is reported.
func TestUntypedCallsFindsMethodNames(t *testing.T) {
	src := `package p
import rt "github.com/codexhost/codexhost/runtime/api"
func a(c rt.Requester) { _ = c.Call(nil, rt.MethodThreadRead, nil, nil) }
func b(c rt.Requester) { _ = c.Call(nil, "thread.read", nil, nil) }
func run(c rt.Requester, method string) { _ = c.Call(nil, method, nil, nil) }
var name = rt.MethodThreadList
type ok struct{ c rt.Requester }
func (o ok) Call(ctx any, method string, p, out any) error { return o.c.Call(nil, method, p, out) }
func typed(c rt.EventRequester) {
	_, _ = rt.ThreadRead.Call(nil, c, rt.ThreadReadParams{})
	_, _ = rt.CatalogSessions.CallEvents(nil, c, rt.CatalogSessionsParams{}, nil)
}
func events(c rt.EventRequester) { _ = c.CallEvents(nil, "catalog.sessions", nil, nil, nil) }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := untypedCalls(fset, f)
	if len(got) != 5 {
		t.Fatalf("found %d, want 5 (a's constant, b's literal, run's pass-through, the var, events' literal): %q", len(got), got)
	}
}

// untypedCalls reports the places in f that name a runtime method outside the table.
func untypedCalls(fset *token.FileSet, f *ast.File) []string {
	apiName := ""
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == apiImportPath {
			apiName = "api"
			if im.Name != nil {
				apiName = im.Name.Name
			}
		}
	}
	var out []string
	report := func(n ast.Node, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+what)
	}
	for _, d := range f.Decls {
		adapterParam := adapterMethodParam(d)
		ast.Inspect(d, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && apiName != "" && id.Name == apiName && methodConst.MatchString(x.Sel.Name) {
					report(x, "names "+apiName+"."+x.Sel.Name+"; call "+apiName+"."+strings.TrimPrefix(x.Sel.Name, "Method")+" (methods.go) instead")
				}
			case *ast.CallExpr:
				sel, ok := x.Fun.(*ast.SelectorExpr)
				// The untyped forms: Call(ctx, method, params, out), CallEvents(…, fn). The typed
				// ones take the connection second and one argument fewer.
				if !ok || !(sel.Sel.Name == "Call" && len(x.Args) >= 4 || sel.Sel.Name == "CallEvents" && len(x.Args) >= 5) {
					return true
				}
				switch arg := x.Args[1].(type) {
				case *ast.Ident:
					if adapterParam == "" || arg.Name != adapterParam {
						report(x, "passes a method name ("+arg.Name+") to "+sel.Sel.Name+"; use a typed method")
					}
				case *ast.BasicLit:
					report(x, "passes the method name "+arg.Value+" to "+sel.Sel.Name+"; use a typed method")
				case *ast.SelectorExpr:
					// Another package's names (the App Server's) are that package's affair;
					// the api package's are reported above.
				default:
					report(x, "passes a computed method name to "+sel.Sel.Name+"; use a typed method")
				}
			}
			return true
		})
	}
	return out
}

// adapterMethodParam is the method-name parameter of d when d is a Call or CallEvents method
// (an adapter that implements Requester and passes the name on), else "".
func adapterMethodParam(d ast.Decl) string {
	fd, ok := d.(*ast.FuncDecl)
	if !ok || fd.Recv == nil || (fd.Name.Name != "Call" && fd.Name.Name != "CallEvents") {
		return ""
	}
	var names []string
	for _, p := range fd.Type.Params.List {
		for _, n := range p.Names {
			names = append(names, n.Name)
		}
	}
	if len(names) < 2 {
		return ""
	}
	return names[1]
}
