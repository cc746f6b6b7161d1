package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// An open home is refused with the chmod that fixes it, quoted so that it runs as printed
// when the home's path holds a space, a quote and a $.
func TestOpenHomeModeHintRunsAsPrintedWhateverThePath(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "it's $HOME")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Open(home, Options{})
	me := asModelError(t, err, model.CodePermissionDenied)
	_, command, ok := strings.Cut(me.Hint, "run: ")
	if !ok {
		t.Fatalf("hint %q names no command", me.Hint)
	}
	if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("the hint's command %s failed: %v %s", command, err, out)
	}
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatalf("Open after the hint's command: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
