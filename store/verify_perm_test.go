package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// Verify refuses what Open refuses: a home or database directory that others can enter is
// PERMISSION_DENIED with the chmod that fixes it, not a healthy store that every command then
// refuses to open.
func TestVerifyReportsLooseHomeAndDatabaseModes(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	s, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{home, filepath.Join(home, DBDir)} {
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		rep := Verify(home)
		if rep.Error == nil || rep.Error.Code != model.CodePermissionDenied {
			t.Fatalf("Verify with %s 0755 = %+v, want PERMISSION_DENIED", dir, rep.Error)
		}
		if want := "run: chmod 700 " + dir; rep.Error.Hint != want {
			t.Fatalf("hint %q, want %q", rep.Error.Hint, want)
		}
		if _, err := Open(home, Options{}); err == nil {
			t.Fatalf("Open with %s 0755 succeeded; Verify and Open disagree", dir)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if rep := Verify(home); rep.Error != nil {
		t.Fatalf("Verify of the private home: %v", rep.Error)
	}
}

// A home without a database yet is checked too: every command would refuse it.
func TestVerifyReportsLooseHomeWithoutDatabase(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if rep := Verify(home); rep.Error == nil || rep.Error.Code != model.CodePermissionDenied {
		t.Fatalf("Verify of a 0755 home without db = %+v, want PERMISSION_DENIED", rep.Error)
	}
	if rep := Verify(filepath.Join(home, "missing")); rep.Error != nil {
		t.Fatalf("Verify of a home not made yet: %v", rep.Error)
	}
}
