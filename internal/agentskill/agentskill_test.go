package agentskill

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexhost/codexhost/model"
)

// An older copy of ours in a legacy root ($CODEX_HOME/skills) whose parent others may write:
// install refuses before writing anything, as its hint says ("nothing was written").
func TestInstallOnceChecksLegacyRootsBeforeWriting(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	legacy := filepath.Join(codexHome, "skills")
	if err := os.MkdirAll(legacy, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := write(filepath.Join(legacy, Name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(codexHome, 0o775); err != nil {
		t.Fatal(err)
	}
	roots := Roots(home)
	_, err := InstallOnce(roots, LegacyRoots(home, codexHome), time.Now())
	var me *model.Error
	if !errors.As(err, &me) || me.Code != model.CodeFailedPrecondition {
		t.Fatalf("want a refusal of %s, got %v", codexHome, err)
	}
	for _, r := range roots {
		if _, err := os.Lstat(filepath.Join(r, Name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written although install was refused: %v", r, err)
		}
	}
}
