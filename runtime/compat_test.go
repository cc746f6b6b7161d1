package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
	"github.com/codexhost/codexhost/runtime/config"
)

// Scenario: S003-22 — after the migration the runtime reads only the canonical shape: a home
// whose config.toml still has the legacy [supervisor] table does not start, and the error
// names `codexhost doctor --fix`.
func TestS003_22_RuntimeRefusesTheLegacySupervisorTable(t *testing.T) {
	t.Parallel()
	home, err := os.MkdirTemp("", "chl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	if err := os.WriteFile(filepath.Join(home, config.FileName), []byte("[supervisor]\nendpoints = [\"/codex/a\"]\nenabled = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := Open(context.Background(), Options{Home: home, CLIPath: "/bin/false", Environ: []string{"HOME=" + t.TempDir(), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}})
	if err == nil {
		_ = h.Close()
		t.Fatal("a runtime started on a legacy config.toml")
	}
	me := model.AsError(err)
	if me.Code != model.CodeFailedPrecondition || !strings.Contains(me.Hint, "codexhost doctor --fix") {
		t.Fatalf("want FAILED_PRECONDITION naming the fix, got %v", err)
	}
	if _, err := config.MigrateLegacy(home); err != nil {
		t.Fatal(err)
	}
	h, err = Open(context.Background(), Options{Home: home, CLIPath: "/bin/false", Environ: []string{"HOME=" + t.TempDir(), "CODEXHOST_CODEX_BIN=/nonexistent/codex"}})
	if err != nil {
		t.Fatalf("the migrated home does not start: %v", err)
	}
	if cfg := h.config(); !cfg.CompatTools.Enabled || len(cfg.Catalog.CodexHomes) != 1 {
		t.Fatalf("the runtime read %+v", cfg)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
}
