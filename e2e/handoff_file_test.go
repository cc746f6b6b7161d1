package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Scenario: S004-03 — a malformed --file, or data after the object, is the caller's error:
// INVALID_ARGUMENT naming the line and column, never INTERNAL_ERROR.
func TestS004_03_HandoffFileMalformedIsInvalidArgument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name, body string
		line, col  float64
	}{
		{"missing-colon.json", "{\n  \"title\": \"demo\",\n  \"objective\" \"x\"\n}\n", 3, 15},
		{"trailing.json", "{\"title\": \"demo\"}\n{\"title\": \"again\"}\n", 2, 1},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, []string{"HOME=" + dir, "CODEXHOST_HOME=" + filepath.Join(dir, "home")}, "handoff", "create", "--file", p, "--json")
		e := r.failure(t)
		if e.Code != "INVALID_ARGUMENT" || e.Details["line"] != c.line || e.Details["column"] != c.col {
			t.Fatalf("%s: %+v", c.name, e)
		}
		if !strings.Contains(e.Message, "line ") || strings.Contains(e.Message, "MarshalJSON") {
			t.Fatalf("%s: message %q", c.name, e.Message)
		}
	}
}
