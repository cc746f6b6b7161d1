package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// A config.toml others may read is refused with the chmod that fixes it, quoted so that it
// runs as printed in a home whose path holds a space and a quote.
func TestConfigModeHintRunsAsPrintedWhateverThePath(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "it's a home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, FileName)
	if err := os.WriteFile(path, []byte("# empty\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(home)
	if !model.IsCode(err, model.CodePermissionDenied) {
		t.Fatalf("Load: %v", err)
	}
	_, rest, _ := strings.Cut(model.AsError(err).Hint, "`")
	command, _, ok := strings.Cut(rest, "`")
	if !ok {
		t.Fatalf("hint %q names no command", model.AsError(err).Hint)
	}
	if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("the hint's command %s failed: %v %s", command, err, out)
	}
	if _, err := Load(home); err != nil {
		t.Fatalf("Load after the hint's command: %v", err)
	}
}
