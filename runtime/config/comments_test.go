package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rewrite drops the comments a person wrote in config.toml (the encoder writes values only):
// the previous file is kept beside it, 0600, and its path returned, once; a file without
// comments, or whose '#' is inside a value, is rewritten without a copy.
func TestUpdateKeepsPreviousFileWhenItDropsComments(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, FileName)
	text := "# why sh: the CI box has no bash\n[harnesses.sh]\ncommand = [\"sh\", \"-c\", \"cat # echo\"] # keep cat\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	add := func(name string) string {
		t.Helper()
		kept, err := Update(home, func(c *Config) error { _, err := c.AddClient(name, Grant{}); return err })
		if err != nil {
			t.Fatal(err)
		}
		return kept
	}
	kept := add("bot1")
	if kept == "" {
		t.Fatal("the rewrite dropped the comments and kept no copy")
	}
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != text {
		t.Fatalf("kept copy = %q, want the previous file %q", b, text)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o600 {
		t.Fatalf("kept copy mode %04o, want 0600", fi.Mode().Perm())
	}
	if !strings.Contains(KeptNote(kept), kept) {
		t.Fatalf("note %q does not name the copy", KeptNote(kept))
	}
	if again := add("bot2"); again != "" {
		t.Fatalf("a rewrite of a file without comments kept %s", again)
	}
}

// doctor --fix says where the file with the comments went.
func TestMigrateLegacyKeepsCommentedFile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	text := "# supervised homes of the lab\n[supervisor]\nenabled = true\n"
	if err := os.WriteFile(filepath.Join(home, FileName), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := MigrateLegacy(home)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Applied || m.Kept == "" {
		t.Fatalf("migration = %+v, want applied with the previous file kept", m)
	}
	if b, _ := os.ReadFile(m.Kept); string(b) != text {
		t.Fatalf("kept %q, want %q", b, text)
	}
}
