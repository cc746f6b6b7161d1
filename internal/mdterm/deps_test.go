package mdterm

import (
	"os/exec"
	"strings"
	"testing"
)

// Every package linked into the binary runs its init before main, in every command. These
// ones cost milliseconds at start (regexp compiles, lexer and style registries, HTML
// renderers) and must not come back through the renderer or anything else.
func TestBinaryLinksNoPackageWithCostlyInit(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the binary's packages")
	}
	out, err := exec.Command(goTool, "list", "-deps", "github.com/codexhost/codexhost").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	banned := []string{"github.com/alecthomas/chroma", "github.com/microcosm-cc/bluemonday",
		"github.com/charmbracelet/glamour", "github.com/yuin/goldmark/extension", "github.com/yuin/goldmark/renderer"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			// goldmark/extension/ast holds node types only; it is what the GFM parsers build.
			if strings.HasPrefix(pkg, b) && pkg != "github.com/yuin/goldmark/extension/ast" {
				t.Errorf("the binary links %s", pkg)
			}
		}
	}
}
