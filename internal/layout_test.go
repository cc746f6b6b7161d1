// Package internal_test checks how internal/ is split by who may use each package:
//
//   - internal/<name>: libraries below the runtime, for any package; none imports runtime/.
//   - internal/face/<name>: helpers of the faces (cli/, ui/) that speak the runtime API;
//     nothing of the runtime, the store or the model imports them.
//   - internal/testkit/<name> and runtime/hosttest: test support, imported by tests only.
package internal_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/codexhost/codexhost"

// testSupport says whether pkg is test support, which only tests (and other test support)
// may import.
func testSupport(pkg string) bool {
	return under(pkg, module+"/internal/testkit") || pkg == module+"/runtime/hosttest"
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// violations lists each package of deps (a package's non-test dependencies, transitive)
// that uses a package it may not.
func violations(deps map[string][]string) []string {
	var out []string
	for pkg, ds := range deps {
		library := under(pkg, module+"/internal") && !under(pkg, module+"/internal/face") && !testSupport(pkg)
		belowFaces := under(pkg, module+"/runtime") || under(pkg, module+"/store") || under(pkg, module+"/model")
		for _, d := range ds {
			switch {
			case testSupport(d) && !testSupport(pkg):
				out = append(out, pkg+" imports test support "+d)
			case library && under(d, module+"/runtime"):
				out = append(out, "library "+pkg+" imports "+d+" (a library sits below the runtime)")
			case (library || belowFaces) && under(d, module+"/internal/face"):
				out = append(out, pkg+" imports the face helper "+d)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestInternalIsSplitByWhoMayUseIt(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the module's packages")
	}
	out, err := exec.Command(goTool, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, module+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	if len(deps) < 20 || deps[module+"/runtime"] == nil {
		t.Fatalf("go list found %d packages, not the module's", len(deps))
	}
	for _, v := range violations(deps) {
		t.Error(v)
	}
	// The check sees each kind of misuse.
	bad := map[string][]string{
		module + "/internal/atomicfile": {module + "/runtime/api"},
		module + "/cli":                 {module + "/internal/testkit/fakemodel"},
		module + "/runtime/threads":     {module + "/internal/face/opview"},
		module + "/internal/table":      {module + "/internal/face/opview"},
	}
	if got := violations(bad); len(got) != len(bad) {
		t.Errorf("the check found %d of %d misuses:\n%s", len(got), len(bad), strings.Join(got, "\n"))
	}
}
