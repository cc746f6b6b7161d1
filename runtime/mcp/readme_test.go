package mcp

import (
	"os"
	"strings"
	"testing"
)

// The README's tool list is the server's own registrations.
func TestReadmeToolListMatchesTheRegistrations(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), ReadmeBegin+"\n")
	block, _, ok2 := strings.Cut(rest, ReadmeEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the %q … %q block", ReadmeBegin, ReadmeEnd)
	}
	if want := ToolsMarkdown(); block != want {
		t.Fatalf("README.md's tool list drifted from the registrations; replace the block with:\n%s", want)
	}
}
