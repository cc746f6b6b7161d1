package store

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexhost/codexhost/model"
)

// leftovers lists what a restore left in the home besides the database: staging or replaced
// directories.
func leftovers(t *testing.T, home string) []string {
	t.Helper()
	entries, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "db-restore-") || strings.HasPrefix(e.Name(), "db-replaced-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// A file that is not a backup (random bytes, a truncated backup, an empty file) is refused
// before the store is touched, without a panic, and leaves no db-restore-* directory; the
// home's records are all still there, even with --replace.
func TestRestoreRefusesAFileThatIsNotABackup(t *testing.T) {
	t.Parallel()
	home := populatedHome(t)
	valid, err := os.ReadFile(backupOf(t, home))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// A length that says "a huge list follows", the case badger's loader allocates for.
	huge := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, random[:64]...)
	files := map[string][]byte{
		"random":    random,
		"huge":      huge,
		"truncated": valid[:len(valid)-len(valid)/3],
		"text":      []byte("this is not a backup\n"),
		"empty":     nil,
	}
	for name, data := range files {
		file := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, replace := range []bool{false, true} {
			_, err := Restore(home, file, RestoreOptions{Replace: replace}, backupClock)
			want := model.CodeInvalidArgument
			if name == "empty" {
				want = model.CodeFailedPrecondition // a well-formed backup of nothing
			}
			if !model.IsCode(err, want) {
				t.Fatalf("%s (replace %v): want %s, got %v", name, replace, want, err)
			}
			if left := leftovers(t, home); len(left) != 0 {
				t.Fatalf("%s left %v", name, left)
			}
		}
	}
	wantAllNotes(t, home)
}

// A backup of an empty store is refused, as it would empty the home's; --allow-empty takes it.
func TestRestoreOfAnEmptyBackupNeedsAllowEmpty(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty")
	s, err := Open(empty, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	file := backupOf(t, empty)
	home := populatedHome(t)
	_, err = Restore(home, file, RestoreOptions{Replace: true}, backupClock)
	if !model.IsCode(err, model.CodeFailedPrecondition) || !strings.Contains(model.AsError(err).Hint, "--allow-empty") {
		t.Fatalf("an empty backup over records: %v", err)
	}
	wantAllNotes(t, home)
	if left := leftovers(t, home); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	info, err := Restore(fresh, file, RestoreOptions{AllowEmpty: true}, backupClock)
	if err != nil || info.Records != 0 {
		t.Fatalf("with allow-empty: %+v %v", info, err)
	}
	if rep := Verify(fresh); rep.Error != nil {
		t.Fatalf("Verify after an empty restore: %+v", rep.Error)
	}
}

// FuzzCheckBackup: no input makes the check panic, and what it accepts the loader loads.
func FuzzCheckBackup(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "b")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		home := filepath.Join(t.TempDir(), "h")
		_, err := Restore(home, file, RestoreOptions{AllowEmpty: true}, backupClock)
		if err != nil && !model.IsCode(err, model.CodeInvalidArgument) {
			t.Fatalf("restore of %x: %v", data, err)
		}
		if left := leftovers(t, home); len(left) != 0 {
			t.Fatalf("left %v", left)
		}
	})
}
